/**
 * @amplifier/provider-openai: the OpenAI Chat Completions API, and every
 * server that speaks it (Ollama, vLLM, llama.cpp server, LM Studio,
 * OpenRouter), as an Amplifier provider named `openai`.
 */
import { type Cleanup, type Coordinator, OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { assertConfig, CONFIG_KEYS, isLocalUrl, type OpenAIConfig, resolveConfig } from './config.js';
import { EXTRA_EVENTS } from './events.js';
import { OpenAIProvider } from './provider.js';

export type { OpenAIConfig, ResolvedConfig } from './config.js';
export { CONFIG_SCHEMA, DEFAULT_BASE_URL, DEFAULT_MODEL, isLocalUrl, resolveConfig } from './config.js';
export type { EventEmitterLike } from './events.js';
export { EXTRA_EVENTS } from './events.js';
export type { ModelLimits, ModelPrice } from './models.js';
export { BUILTIN_MODELS, BUILTIN_PRICES } from './models.js';
export { OpenAIProvider } from './provider.js';

/** A provider built in code (not mounted): same config as the mount plan's, validated. */
export function createOpenAIProvider(config: OpenAIConfig = {}): OpenAIProvider {
  assertConfig(config as Record<string, unknown>);
  return new OpenAIProvider(resolveConfig(config));
}

/**
 * Mount the provider under `openai`. Without an API key (config `api_key` or
 * env `OPENAI_API_KEY`) it does not mount and logs why, unless `base_url` is a
 * local server (localhost, 127.x, ::1). Bad config fails the mount with every
 * problem listed. Registers the `session.cost` contribution and its extra
 * events on `observability.events`; the cleanup closes the connection pool.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup | undefined> {
  assertConfig(config);
  for (const key of Object.keys(config)) {
    if (!CONFIG_KEYS.has(key))
      coordinator.logger.warn(`provider-openai: unknown config key '${key}' is ignored`);
  }
  const resolved = resolveConfig(config);
  if (resolved.apiKey === undefined && !isLocalUrl(resolved.baseUrl)) {
    coordinator.logger.warn(
      `provider-openai: not mounted: no API key for ${resolved.baseUrl.href}. Set OPENAI_API_KEY or the provider's api_key config (a local server such as http://localhost:11434/v1 needs none).`,
    );
    return undefined;
  }
  const provider = new OpenAIProvider(resolved, { hooks: coordinator.hooks, logger: coordinator.logger });
  coordinator.mount('providers', provider, { name: provider.name });
  coordinator.registerContributor('session.cost', 'provider-openai', () => {
    const cost = provider.costUsd;
    return cost === null ? null : { provider: provider.name, cost_usd: cost };
  });
  coordinator.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, 'provider-openai', () => [...EXTRA_EVENTS]);
  return () => provider.close();
}
