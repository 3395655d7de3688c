/**
 * Module config: its JSON Schema (checked at mount through the provider kit's
 * `readProviderConfig`), the type derived from it, where region, endpoint,
 * profile and Bearer key come from, and the resolved settings the provider
 * runs with. The keys every HTTP provider shares are the kit's; these are
 * Bedrock's, including the Amplifier community module's (`aws_profile`,
 * `aws_region`, `use_cross_region_inference`, `debug`, `raw_debug`).
 */
import { type ConfigField, DataValidationError, type JSONSchema, ownConfig } from '@amplifier/core';
import {
  PROVIDER_CONFIG_PROPERTIES,
  type ProviderConfig,
  type ProviderDefaults,
  providerConfigFields,
  type ResolvedProviderConfig,
  resolveProviderConfig,
} from '@amplifier/provider-http';
import type { FromSchema } from '@amplifier/schema';

/** The Bedrock-specific keys (the shared ones are `PROVIDER_CONFIG_PROPERTIES`). */
export const BEDROCK_CONFIG_PROPERTIES = {
  /** Bedrock takes 0..1. Default: not sent (the model's default). */
  temperature: { type: 'number', minimum: 0, maximum: 1 },
  /** The AWS region. Default: env `AWS_REGION`, `AWS_DEFAULT_REGION`, else the profile's region. */
  aws_region: { type: 'string', pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]+$' },
  /** A profile of `~/.aws/config` / `~/.aws/credentials` (SSO, roles, processes). Default: env `AWS_PROFILE`, else `default`. */
  aws_profile: { type: 'string', minLength: 1 },
  /** Prefix a bare model id with the region's inference-profile geography (`us.`, `eu.`, `apac.`). Default true. */
  use_cross_region_inference: { type: 'boolean' },
  /** `cachePoint` blocks after the system prompt, the tools and the last user message. Default true. */
  enable_prompt_caching: { type: 'boolean' },
  /** Think on every request (Claude: `thinking` budget; Nova 2: `reasoningConfig`); also per call by `reasoning_effort`. */
  extended_thinking: { type: 'boolean' },
  /** Claude's thinking budget when thinking is on without a `reasoning_effort`. Default 16000. */
  thinking_budget_tokens: { type: 'integer', minimum: 1024 },
  /** Merged into Converse's `additionalModelRequestFields` (model-specific fields). */
  additional_model_request_fields: { type: 'object' },
  /** Amplifier community key: accepted; debug lines go to the logger's debug level anyway. */
  debug: { type: 'boolean' },
  /** Amplifier community key: the request body in `llm:request` as `raw` (same as `raw`). */
  raw_debug: { type: 'boolean' },
} as const;

/** JSON Schema of the module config. */
export const CONFIG_SCHEMA: JSONSchema = {
  type: 'object',
  properties: { ...PROVIDER_CONFIG_PROPERTIES, ...BEDROCK_CONFIG_PROPERTIES },
};

/** The module config as a mount plan gives it (snake_case), derived from the schema. Every key is optional. */
export type BedrockConfig = Omit<ProviderConfig, 'temperature'> &
  FromSchema<{ type: 'object'; properties: typeof BEDROCK_CONFIG_PROPERTIES }>;

/** The settings the provider runs with (all defaults applied). */
export interface ResolvedConfig extends ResolvedProviderConfig {
  /** The region, or undefined to let the SDK read it from the profile. */
  region: string | undefined;
  profile: string | undefined;
  /** A base URL given in config or the environment: sent to the SDK as `endpoint`. Otherwise the SDK's own. */
  endpoint: string | undefined;
  crossRegionInference: boolean;
  promptCaching: boolean;
  extendedThinking: boolean;
  thinkingBudget: number;
  additionalFields: Record<string, unknown>;
}

/** The community module's default model. */
export const DEFAULT_MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
/** Default `max_tokens` (the community module's). */
export const DEFAULT_MAX_TOKENS = 8192;

const DEFAULTS: ProviderDefaults = {
  module: 'provider-bedrock',
  apiKeyEnv: 'AWS_BEARER_TOKEN_BEDROCK',
  baseUrlEnv: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
  baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  model: DEFAULT_MODEL,
  baseUrlHint: ' (e.g. https://bedrock-runtime.us-east-1.amazonaws.com)',
};

/** Bedrock Runtime's public endpoint for a region. */
export function regionEndpoint(region: string): string {
  return `https://bedrock-runtime.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

/** Inference-profile prefixes a model id may already carry. */
const PROFILE_PREFIX = /^(us|eu|apac|jp|au|ca|us-gov|global)\./;
/** Model families offered through cross-region inference profiles. */
const PROFILED = /^(anthropic|amazon\.nova|meta|deepseek|mistral\.pixtral|writer|openai|qwen)[.-]/;

/**
 * The model id to send: with `use_cross_region_inference`, a bare id of a
 * family served through inference profiles gets its region's geography
 * (`us-east-1` → `us.anthropic...`); ARNs, ids already prefixed and regions
 * without a known geography are left alone.
 */
export function inferenceModelId(model: string, region: string | undefined, crossRegion: boolean): string {
  if (!crossRegion || region === undefined || model.startsWith('arn:') || PROFILE_PREFIX.test(model))
    return model;
  if (!PROFILED.test(model)) return model;
  const geo = region.startsWith('us-gov-')
    ? 'us-gov'
    : region.startsWith('us-')
      ? 'us'
      : region.startsWith('eu-')
        ? 'eu'
        : region.startsWith('ap-')
          ? 'apac'
          : undefined;
  return geo === undefined ? model : `${geo}.${model}`;
}

/**
 * Apply defaults and the environment to a validated config (own properties
 * only). Bearer key: `api_key`, else `AWS_BEARER_TOKEN_BEDROCK` (otherwise
 * SigV4 with the SDK's credential chain). Region: `aws_region`, else
 * `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's. Endpoint:
 * `base_url`, else `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, else `AWS_ENDPOINT_URL`,
 * else the region's public endpoint.
 */
export function resolveConfig(raw: BedrockConfig, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const config = ownConfig(raw, 'provider-bedrock') as BedrockConfig;
  const region = config.aws_region || env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-[0-9]+$/.test(region)) {
    throw new DataValidationError(
      `provider-bedrock: AWS region '${region}' is not a region name; set aws_region (or AWS_REGION) to one such as us-east-1`,
      [{ path: 'aws_region', message: 'must be an AWS region such as us-east-1' }],
    );
  }
  const endpoint =
    config.base_url || env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME || env.AWS_ENDPOINT_URL || undefined;
  const defaults: ProviderDefaults = {
    ...DEFAULTS,
    baseUrl: regionEndpoint(region ?? 'us-east-1'),
  };
  const common = resolveProviderConfig(
    {
      ...(config as ProviderConfig),
      ...(endpoint !== undefined && { base_url: endpoint }),
      ...(config.raw === undefined && config.raw_debug !== undefined && { raw: config.raw_debug }),
    },
    defaults,
    env,
  );
  return {
    ...common,
    maxTokens: common.maxTokens ?? DEFAULT_MAX_TOKENS,
    region,
    profile: config.aws_profile || undefined,
    endpoint: endpoint === undefined ? undefined : common.baseUrl.href.replace(/\/$/, ''),
    crossRegionInference: config.use_cross_region_inference ?? true,
    promptCaching: config.enable_prompt_caching ?? true,
    extendedThinking: config.extended_thinking ?? false,
    thinkingBudget: config.thinking_budget_tokens ?? 16_000,
    additionalFields: config.additional_model_request_fields ?? {},
  };
}

/** Environment variables that show AWS credentials are set up on this machine (any one). */
export const CREDENTIAL_ENV_VARS: readonly string[] = [
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_ACCESS_KEY_ID',
  'AWS_PROFILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
];

/** What an app asks for when a user sets this provider up interactively. */
export function configFields(model: string): ConfigField[] {
  return [
    ...providerConfigFields(DEFAULTS, model, {
      apiKey: 'Amazon Bedrock API key (AWS_BEARER_TOKEN_BEDROCK); leave empty to use AWS credentials (SigV4)',
      apiKeyRequired: false,
    }),
    {
      id: 'aws_region',
      display_name: 'AWS region',
      field_type: 'text',
      prompt: 'AWS region (e.g. us-east-1)',
      env_var: 'AWS_REGION',
      required: false,
    },
  ];
}
