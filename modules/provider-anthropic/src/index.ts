/**
 * @amplifier/provider-anthropic: the Anthropic Messages API as an Amplifier
 * provider named `anthropic`.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import { assertProviderConfig, mountHttpProvider, PROVIDER_STREAM_EVENTS } from '@amplifier/provider-http';
import { type AnthropicConfig, CONFIG_SCHEMA, resolveConfig } from './config.js';
import { AnthropicProvider } from './provider.js';

export type { AnthropicConfig, ResolvedConfig } from './config.js';
export {
  CONFIG_SCHEMA,
  DEFAULT_ANTHROPIC_VERSION,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  resolveConfig,
} from './config.js';
export type { ModelLimits, ModelPrice } from './models.js';
export { BUILTIN_MODELS, BUILTIN_PRICES } from './models.js';
export { AnthropicProvider } from './provider.js';
export { EFFORT_BUDGETS } from './request.js';

/** Events this provider emits beyond the canonical set (declared on `observability.events`). */
export const EXTRA_EVENTS: readonly string[] = PROVIDER_STREAM_EVENTS;

/** A provider built in code (not mounted): same config as the mount plan's, validated. */
export function createAnthropicProvider(config: AnthropicConfig = {}): AnthropicProvider {
  assertProviderConfig(CONFIG_SCHEMA, config as Record<string, unknown>, 'provider-anthropic');
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
  return mountHttpProvider(coordinator, config, {
    module: 'provider-anthropic',
    schema: CONFIG_SCHEMA,
    resolve: (valid) => resolveConfig(valid as AnthropicConfig),
    missingKey: () => "no API key. Set ANTHROPIC_API_KEY or the provider's api_key config.",
    create: (resolved, options) => new AnthropicProvider(resolved, options),
    events: EXTRA_EVENTS,
  });
}
