/**
 * @amplifier/provider-bedrock: Amazon Bedrock's Converse API (through the
 * AWS SDK v3) as an Amplifier provider named `bedrock`.
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import {
  assertProviderConfig,
  isLocalUrl,
  mountHttpProvider,
  PROVIDER_STREAM_EVENTS,
} from '@amplifier/provider-http';
import { type BedrockConfig, CONFIG_SCHEMA, CREDENTIAL_ENV_VARS, resolveConfig } from './config.js';
import { BedrockProvider, type BedrockProviderOptions } from './provider.js';

export type { BedrockConfig, ResolvedConfig } from './config.js';
export {
  BEDROCK_CONFIG_PROPERTIES,
  CONFIG_SCHEMA,
  CREDENTIAL_ENV_VARS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MODEL,
  inferenceModelId,
  regionEndpoint,
  resolveConfig,
} from './config.js';
export { buildResponse, fromConverseOutput, StreamReader, toUsage } from './convert.js';
export { bedrockError } from './errors.js';
export type { SdkHandlerOptions, SdkHttpRequest, SdkHttpResponse, TransportFactory } from './handler.js';
export { poolTransports, TransportRequestHandler } from './handler.js';
export type { ModelLimits, ModelPrice } from './models.js';
export { BUILTIN_MODELS, BUILTIN_PRICES, PRICES_DATE } from './models.js';
export type { AwsCredentials, BedrockProviderOptions } from './provider.js';
export { BedrockProvider } from './provider.js';
export type { BodyOptions } from './request.js';
export { EFFORT_BUDGETS, toConverseInput, toConverseMessages } from './request.js';

/** Events this provider emits beyond the canonical set (declared on `observability.events`). */
export const EXTRA_EVENTS: readonly string[] = PROVIDER_STREAM_EVENTS;

/** A provider built in code (not mounted): same config as the mount plan's, validated. */
export function createBedrockProvider(
  config: BedrockConfig = {},
  options: BedrockProviderOptions = {},
): BedrockProvider {
  assertProviderConfig(CONFIG_SCHEMA, config as Record<string, unknown>, 'provider-bedrock');
  return new BedrockProvider(resolveConfig(config), options);
}

/** Whether this machine shows any sign of AWS credentials or a Bedrock key (the SDK resolves them on the first request). */
function awsConfigured(env: NodeJS.ProcessEnv, profile: string | undefined): boolean {
  return profile !== undefined || CREDENTIAL_ENV_VARS.some((name) => Boolean(env[name]));
}

/**
 * Mount the provider under `bedrock`. It mounts when a Bedrock API key
 * (`api_key`, `AWS_BEARER_TOKEN_BEDROCK`), an AWS profile (`aws_profile`), a
 * region (`aws_region`) or any AWS credential or region variable is there, or
 * when `base_url` is a server on this machine; the SDK resolves the
 * credentials on the first request. Otherwise it does not mount and logs why.
 * Registers `session.cost` and its extra events; the cleanup closes the
 * connections.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup | undefined> {
  return mountHttpProvider(coordinator, config, {
    module: 'provider-bedrock',
    schema: CONFIG_SCHEMA,
    resolve: (valid) => resolveConfig(valid as BedrockConfig),
    missingKey: (resolved) =>
      awsConfigured(process.env, resolved.profile) ||
      resolved.region !== undefined ||
      (resolved.endpoint !== undefined && isLocalUrl(resolved.baseUrl))
        ? undefined
        : 'no AWS credentials. Set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), or AWS credentials (AWS_PROFILE / aws_profile, AWS_ACCESS_KEY_ID) and AWS_REGION / aws_region.',
    create: (resolved, options) => new BedrockProvider(resolved, options),
    events: EXTRA_EVENTS,
  });
}
