/**
 * @amplifier/provider-anthropic: the Anthropic Messages API as an Amplifier
 * provider named `anthropic`.
 */
import { type Cleanup, type Coordinator, OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { type AnthropicConfig, assertConfig, CONFIG_KEYS, resolveConfig } from './config.js';
import { EXTRA_EVENTS } from './events.js';
import { AnthropicProvider } from './provider.js';

export type { AnthropicConfig, ResolvedConfig } from './config.js';
export {
  CONFIG_SCHEMA,
  DEFAULT_ANTHROPIC_VERSION,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  resolveConfig,
} from './config.js';
export type { EventEmitterLike } from './events.js';
export { EXTRA_EVENTS } from './events.js';
export type { ModelLimits, ModelPrice } from './models.js';
export { BUILTIN_MODELS, BUILTIN_PRICES } from './models.js';
export { AnthropicProvider } from './provider.js';
export { EFFORT_BUDGETS } from './request.js';

/** A provider built in code (not mounted): same config as the mount plan's, validated. */
export function createAnthropicProvider(config: AnthropicConfig = {}): AnthropicProvider {
  assertConfig(config as Record<string, unknown>);
  return new AnthropicProvider(resolveConfig(config));
}

/**
 * Mount the provider under `anthropic`. Without an API key (config `api_key`
 * or env `ANTHROPIC_API_KEY`) it does not mount and logs why. Bad config
 * fails the mount with every problem listed. Registers the `session.cost`
 * contribution and its extra events on `observability.events`; the cleanup
 * closes the connection pool.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup | undefined> {
  assertConfig(config);
  for (const key of Object.keys(config)) {
    if (!CONFIG_KEYS.has(key))
      coordinator.logger.warn(`provider-anthropic: unknown config key '${key}' is ignored`);
  }
  const resolved = resolveConfig(config);
  if (resolved.apiKey === undefined) {
    coordinator.logger.warn(
      "provider-anthropic: not mounted: no API key. Set ANTHROPIC_API_KEY or the provider's api_key config.",
    );
    return undefined;
  }
  const provider = new AnthropicProvider(resolved, { hooks: coordinator.hooks, logger: coordinator.logger });
  coordinator.mount('providers', provider, { name: provider.name });
  coordinator.registerContributor('session.cost', 'provider-anthropic', () => {
    const cost = provider.costUsd;
    return cost === null ? null : { provider: provider.name, cost_usd: cost };
  });
  coordinator.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, 'provider-anthropic', () => [
    ...EXTRA_EVENTS,
  ]);
  return () => provider.close();
}
