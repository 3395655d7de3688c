/**
 * The mount flow of an HTTP provider: read the config by core's config policy
 * (unknown keys warned about once, a misspelt `base_url` refused), no credentials = not mounted with a warning that says why,
 * then mount, contribute `session.cost` and the extra event names, and hand
 * back the cleanup that closes the connections.
 */
import type { Cleanup, Coordinator, EventSink, JSONSchema, Logger, Provider } from '@amplifier/core';
import { OBSERVABILITY_EVENTS_CHANNEL, ownConfig } from '@amplifier/core';
import { configKeys, warnConfigKey } from '@amplifier/schema';
import { readProviderConfig } from './config.js';

/** A provider that counts what it spent and holds connections. */
export interface MountableProvider extends Provider {
  /** Total cost of its calls so far (decimal USD string), or null when no price is known. */
  readonly costUsd: string | null;
  /** Release the connections (in-flight requests are aborted). */
  close(): Promise<void>;
}

/** How one provider module mounts. */
export interface ProviderMountSpec<C extends { apiKey: string | undefined }, P extends MountableProvider> {
  /** The module id: log prefix and contributor name (`provider-openai`). */
  module: string;
  /** The config schema; its `properties` are the keys the module reads. */
  schema: JSONSchema;
  /** Defaults and environment applied to the validated config. */
  resolve(config: Record<string, unknown>): C;
  /**
   * Without an API key: why the provider does not mount (logged after
   * "not mounted: "), or undefined when it works without one (a local server).
   */
  missingKey(resolved: C): string | undefined;
  create(resolved: C, options: { hooks: EventSink; logger: Logger }): P;
  /** Events it emits beyond the canonical set, declared on `observability.events`. */
  events?: readonly string[];
}

/**
 * Warn (once per logger, through core's `warnConfigKey`) about top-level
 * config keys the module does not read.
 * @deprecated `mountHttpProvider` reads the config with `readProviderConfig` (core's config policy), which warns.
 */
export function warnUnknownConfigKeys(
  logger: Logger,
  module: string,
  config: Record<string, unknown>,
  schema: JSONSchema,
): void {
  const known = new Set(configKeys(schema));
  for (const key of Object.keys(ownConfig(config, module))) {
    if (!known.has(key)) warnConfigKey(logger, module, key);
  }
}

/** The `session.cost` contribution of a provider: `{ provider, cost_usd }`, or null before any priced call. */
export function sessionCostContribution(provider: {
  readonly name: string;
  readonly costUsd: string | null;
}): { provider: string; cost_usd: string } | null {
  const cost = provider.costUsd;
  return cost === null ? null : { provider: provider.name, cost_usd: cost };
}

/**
 * Mount a provider module's provider. Only the config's own properties are
 * read (an inherited `api_key` or `base_url`, or one under a `__proto__` key,
 * is no setting; `__proto__` is warned about like any unknown key). Bad config
 * fails with every problem listed; without credentials it returns undefined
 * and mounts nothing.
 */
export async function mountHttpProvider<
  C extends { apiKey: string | undefined },
  P extends MountableProvider,
>(
  coordinator: Coordinator,
  raw: Record<string, unknown>,
  spec: ProviderMountSpec<C, P>,
): Promise<Cleanup | undefined> {
  const config = readProviderConfig(spec.schema, raw, spec.module, coordinator.logger);
  const resolved = spec.resolve(config);
  if (resolved.apiKey === undefined) {
    const why = spec.missingKey(resolved);
    if (why !== undefined) {
      coordinator.logger.warn(`${spec.module}: not mounted: ${why}`);
      return undefined;
    }
  }
  const provider = spec.create(resolved, { hooks: coordinator.hooks, logger: coordinator.logger });
  coordinator.mount('providers', provider, { name: provider.name });
  coordinator.registerContributor('session.cost', spec.module, () => sessionCostContribution(provider));
  const events = [...(spec.events ?? [])];
  if (events.length > 0) {
    coordinator.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, spec.module, () => [...events]);
  }
  return () => provider.close();
}
