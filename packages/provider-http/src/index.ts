/**
 * @amplifier/provider-http: what every HTTP LLM provider module needs and
 * nothing API-specific. HTTP without a client dependency (the provider plugs
 * in its transport), transport failures and error responses as LLMError
 * kinds, `Retry-After`, bounded body reads, SSE decoding, the call lifecycle
 * (tool-sequence repair, `llm:request`, retries and `provider:retry`, stream
 * block events, `llm:response`), model tables, exact cost arithmetic, the
 * shared config keys and the mount flow; `HttpLlmProvider` puts them together.
 */

export { BlockEvents, errorInfo, PROVIDER_STREAM_EVENTS } from './block-events.js';
export type { CallSettings, ProviderCall, ProviderCallsOptions, ProviderWire, WireRequest } from './calls.js';
export { ProviderCalls } from './calls.js';
export type {
  ProviderConfig,
  ProviderConfigDef,
  ProviderConfigOf,
  ProviderConfigSpec,
  ProviderDefaults,
  ResolvedProviderConfig,
  SetupPrompts,
} from './config.js';
export {
  assertProviderConfig,
  defineProviderConfig,
  isLocalUrl,
  MODEL_LIMITS_SCHEMA,
  MODEL_PRICE_SCHEMA,
  PROVIDER_CONFIG_PROPERTIES,
  PROVIDER_SAFETY_KEYS,
  providerConfigFields,
  readProviderConfig,
  resolveProviderConfig,
} from './config.js';
export { toolBlocksText, toolResultText } from './content.js';
export type { ModelPrice } from './cost.js';
export { CostMeter, costPico, formatUsd } from './cost.js';
export type { ApiErrorStyle, ErrorDetails, HttpFailure, RateLimitScheme } from './errors.js';
export {
  CONTEXT_LENGTH_PATTERN,
  classifyErrorMessage,
  classifyProviderError,
  errorDetails,
  exhaustedLimitWait,
  httpStatusError,
  parseJsonObject,
  rateLimitFields,
  streamPayloadError,
} from './errors.js';
export type { LlmRequestFacts } from './events.js';
export {
  llmErrorPayload,
  llmRequestPayload,
  llmResponsePayload,
  providerRetryPayload,
  usagePayload,
} from './events.js';
export type { HttpProviderSpec, PoolClass, ProviderPartsOptions } from './http-provider.js';
export { HttpLlmProvider, providerParts } from './http-provider.js';
export type { HttpApi } from './http-wire.js';
export { HttpWire } from './http-wire.js';
export type { ListedLimitFields, ModelCatalogOptions, ModelLimits, ModelTable } from './models.js';
export { listedLimits, lookupModel, ModelCatalog, modelInfo } from './models.js';
export type { MountableProvider, ProviderMountSpec } from './mount.js';
export { mountHttpProvider, sessionCostContribution, warnUnknownConfigKeys } from './mount.js';
export { responseEvents } from './response-events.js';
export type { RetryOptions } from './retry.js';
export { computeRetryDelay, retryWithBackoff } from './retry.js';
export type { SseMessage } from './sse.js';
export { sseEvents, sseJson } from './sse.js';
export type { StrictToolSchema } from './strict-schema.js';
export { strictToolSchema } from './strict-schema.js';
export type { ToolSequenceRepair, ToolSequenceRepairResult } from './tool-sequence.js';
export {
  missingToolResultText,
  repairToolSequence,
  TOOL_SEQUENCE_INTERRUPTED_TEXT,
} from './tool-sequence.js';
export type {
  HttpHeaders,
  HttpResponse,
  PooledDispatcher,
  RequestContext,
  ResponseBody,
  SendOptions,
  Transport,
  TransportRequest,
} from './transport.js';
export {
  abortError,
  header,
  ProviderHttpClient,
  poolTransport,
  readErrorBody,
  readText,
  retryAfterSeconds,
  transportError,
} from './transport.js';
