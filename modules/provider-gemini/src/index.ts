/**
 * @amplifier/provider-gemini: the Gemini API (and Vertex AI) as an Amplifier
 * provider named `gemini`.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import {
  assertProviderConfig,
  isLocalUrl,
  mountHttpProvider,
  PROVIDER_STREAM_EVENTS,
} from '@amplifier/provider-http';
import { CONFIG_SCHEMA, type GeminiConfig, resolveConfig } from './config.js';
import { GeminiProvider, type GeminiProviderOptions } from './provider.js';

export type { AuthLibraryLoader, TokenSource } from './auth.js';
export { adcTokenSource, bearerTransport, CLOUD_PLATFORM_SCOPE, staticTokenSource } from './auth.js';
export type { GeminiConfig, ResolvedConfig, VertexSettings } from './config.js';
export {
  CONFIG_SCHEMA,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  GEMINI_CONFIG_PROPERTIES,
  resolveConfig,
  vertexHost,
} from './config.js';
export type { CallState } from './convert.js';
export { CALLS_KEY, MODEL_KEY, SKIP_SIGNATURE, toUsage } from './convert.js';
export { readGeminiError } from './errors.js';
export type { ModelLimits, ModelPrice } from './models.js';
export { BUILTIN_MODELS, BUILTIN_PRICES, PRICES_DATE } from './models.js';
export type { GeminiProviderOptions } from './provider.js';
export { GeminiProvider } from './provider.js';
export { EFFORT_BUDGETS, toGeminiSchema } from './request.js';

/** Events this provider emits beyond the canonical set (declared on `observability.events`). */
export const EXTRA_EVENTS: readonly string[] = PROVIDER_STREAM_EVENTS;

/** A provider built in code (not mounted): same config as the mount plan's, validated. */
export function createGeminiProvider(
  config: GeminiConfig = {},
  options: GeminiProviderOptions = {},
): GeminiProvider {
  assertProviderConfig(CONFIG_SCHEMA, config as Record<string, unknown>, 'provider-gemini');
  return new GeminiProvider(resolveConfig(config), options);
}

/**
 * Mount the provider under `gemini`. Without an API key (config `api_key`,
 * env `GOOGLE_API_KEY` or `GEMINI_API_KEY`) it does not mount and logs why,
 * unless it talks to Vertex AI (Application Default Credentials, checked on
 * the first request) or to a server on this machine. Bad config fails the
 * mount with every problem listed. Registers the `session.cost` contribution
 * and its extra events on `observability.events`; the cleanup closes the
 * connection pool.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup | undefined> {
  return mountHttpProvider(coordinator, config, {
    module: 'provider-gemini',
    schema: CONFIG_SCHEMA,
    resolve: (valid) => resolveConfig(valid as GeminiConfig),
    missingKey: (resolved) =>
      resolved.vertex !== undefined || isLocalUrl(resolved.baseUrl)
        ? undefined
        : "no API key. Set GEMINI_API_KEY (or GOOGLE_API_KEY), the provider's api_key config, or vertex: { project, location } for Vertex AI.",
    create: (resolved, options) => new GeminiProvider(resolved, options),
    events: EXTRA_EVENTS,
  });
}
