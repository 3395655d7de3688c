/**
 * @amplifier/core: the kernel's public API. Contracts and data types, events,
 * hooks, coordinator, cancellation, loader, session, mount plan, schemas and
 * errors. What several modules share lives in kits beside core:
 * `@amplifier/provider-http`, `@amplifier/process`, `@amplifier/testing`.
 */

export type { CancelCallback, CancellationState } from './cancellation.js';
export { CancellationToken, sleep } from './cancellation.js';
// Contracts (modules implement these)
export type {
  ApprovalProvider,
  ApprovalRequest,
  Cleanup,
  CompleteOptions,
  ContextManager,
  DisplaySystem,
  ExecutionProfile,
  GetMessagesOptions,
  LoadedModule,
  LoadOptions,
  Logger,
  ModuleExports,
  ModuleLoaderLike,
  ModuleSource,
  ModuleSourceResolver,
  MountFunction,
  Orchestrator,
  OrchestratorRun,
  Provider,
  ResourceKey,
  SubSessions,
  Tool,
  ToolCallOptions,
} from './contracts.js';
export type {
  Contributor,
  CoordinatorOptions,
  EmitAndProcessOptions,
  ToolDeniedListener,
} from './coordinator.js';
export { Coordinator } from './coordinator.js';
// Typed tools
export type {
  StandardJSONSchemaV1,
  StandardSchemaIssue,
  StandardSchemaResult,
  StandardSchemaV1,
  ToolDefinition,
  ToolInputOf,
} from './define-tool.js';
export { defineTool } from './define-tool.js';
// Errors
export type {
  AmplifierErrorOptions,
  CodesOf,
  DataError,
  DeclaredErrorCodes,
  ErrorCode,
  ErrorCodeInfo,
  ErrorParams,
  ErrorTable,
} from './errors.js';
export {
  AmplifierError,
  ApprovalTimeoutError,
  CancelledError,
  ConfigRefusedError,
  DataValidationError,
  defineErrors,
  ERROR_CODES,
  errorMessage,
  errorType,
  isFatalError,
  ModuleLoadError,
  ModuleNotFoundError,
  ModuleValidationError,
  MountPlanError,
} from './errors.js';
// Events and their payload types
export type {
  ApprovalDeniedEvent,
  ApprovalGrantedEvent,
  ApprovalRequiredEvent,
  ArtifactReadEvent,
  ArtifactWriteEvent,
  CancelCompletedEvent,
  CancelRequestedEvent,
  CanonicalEventName,
  CanonicalEventPayloads,
  ContentBlockDeltaEvent,
  ContentBlockEndEvent,
  ContentBlockStartEvent,
  ContextCompactionEvent,
  ContextIncludeEvent,
  ContextPostCompactEvent,
  ContextPreCompactEvent,
  EventErrorInfo,
  EventName,
  EventPayload,
  EventPayloads,
  ExecutionEndEvent,
  ExecutionStartEvent,
  LLMRequestEvent,
  LLMResponseEvent,
  LLMResponseUsage,
  LLMStreamAbortedEvent,
  LLMStreamBlockDeltaEvent,
  LLMStreamBlockEndEvent,
  LLMStreamBlockStartEvent,
  ModuleOnSessionReadyFailedEvent,
  OrchestratorCompleteEvent,
  PlanEndEvent,
  PlanStartEvent,
  PolicyViolationEvent,
  PromptCompleteEvent,
  PromptSubmitEvent,
  ProviderErrorEvent,
  ProviderRequestEvent,
  ProviderResolveEvent,
  ProviderResponseEvent,
  ProviderRetryEvent,
  ProviderThrottleEvent,
  ProviderToolSequenceRepairedEvent,
  SessionEndEvent,
  SessionForkEvent,
  SessionResumeEvent,
  SessionStartEvent,
  StreamBlockType,
  ThinkingDeltaEvent,
  ThinkingFinalEvent,
  ToolErrorEvent,
  ToolPostEvent,
  ToolPreEvent,
  UserNotificationEvent,
} from './event-payloads.js';
export * as events from './events.js';
export { ALL_EVENTS, OBSERVABILITY_EVENTS_CHANNEL } from './events.js';
export type { FromSchema, FromSchemaOptions, SchemaOf } from './from-schema.js';
// Hooks, coordinator, cancellation
export type {
  DynamicEventName,
  EmitResult,
  EventData,
  EventKey,
  EventSink,
  HookHandler,
  RegisterOptions,
} from './hooks.js';
export { dynamicEvent, HookRegistry, utcTimestamp } from './hooks.js';
export type { LLMErrorClass, LLMErrorKind, LLMErrorKindInfo, LLMErrorOptions } from './llm-errors.js';
export {
  AbortError,
  AccessDeniedError,
  AuthenticationError,
  ConfigurationError,
  ContentFilterError,
  ContextLengthError,
  createLLMError,
  InvalidRequestError,
  InvalidToolCallError,
  LLM_ERROR_KINDS,
  LLM_ERROR_RETRYABLE,
  LLM_ERROR_TABLE,
  LLMError,
  LLMTimeoutError,
  NetworkError,
  NotFoundError,
  ProviderUnavailableError,
  QuotaExceededError,
  RateLimitError,
  StreamError,
} from './llm-errors.js';
export type { AliasTarget, DiscoveryIndex, DiscoveryProblem } from './loader/discovery.js';
export { clearDiscoveryCache, findPackageDir } from './loader/discovery.js';
// Loader
export type { ModuleLoaderOptions, ResolvedModule } from './loader/loader.js';
export { ModuleLoader } from './loader/loader.js';
export type { ModuleManifest } from './loader/manifest.js';
export { manifestAliases } from './loader/manifest.js';
export { defaultLogger, silentLogger } from './logger.js';
// Data: messages and envelope
export type {
  ChatRequest,
  ChatResponse,
  ContentBlock,
  ContentBlockType,
  Degradation,
  ImageBlock,
  ImageSource,
  InvalidToolArguments,
  JSONSchema,
  Message,
  MessageToolCall,
  ParsedToolArguments,
  ReasoningBlock,
  RedactedThinkingBlock,
  ResponseFormat,
  Role,
  StreamEvent,
  TextBlock,
  ThinkingBlock,
  ToolCall,
  ToolCallBlock,
  ToolChoice,
  ToolResultBlock,
  ToolSpec,
  Usage,
  Visibility,
} from './messages.js';
export {
  blockToolCalls,
  fromMessageToolCall,
  fromToolCallBlock,
  messageToolCalls,
  parseToolArguments,
  readToolCall,
  responseText,
  responseToolCalls,
  toMessageToolCall,
  toToolCallBlock,
} from './messages.js';
export type { ModuleObject } from './module-objects.js';
export { moduleObjectLoader } from './module-objects.js';
export type {
  ConfigField,
  ModelInfo,
  ModuleAlias,
  ModuleInfo,
  ModuleType,
  MountPoint,
  ProviderInfo,
  SessionStatus,
} from './module-types.js';
export { CAPABILITIES, MODULE_TYPES, TYPE_TO_MOUNT_POINT } from './module-types.js';
export type { ModuleSpec, MountPlan, MountPlanValidation, SessionSection } from './mount-plan.js';
export {
  assertMountPlan,
  mountPlanWarnings,
  ownMountPlan,
  parseMountPlan,
  resolveSessionModule,
  validateMountPlan,
} from './mount-plan.js';
export type { OwnDataOptions } from './plain-data.js';
export {
  getOwn,
  isPlainObject,
  MAX_DATA_DEPTH,
  MAX_DEPTH_MARKER,
  ownConfig,
  ownData,
  setOwn,
} from './plain-data.js';
export {
  isSecretKey,
  isSecretValue,
  redactSecrets,
  SENSITIVE_KEYS,
  truncateValues,
} from './redact.js';
// Data: tool and hook results, module types and descriptions
export type {
  FullHookResult,
  HookAction,
  HookResult,
  InjectionRole,
  MessageLevel,
  ToolFailure,
  ToolResult,
} from './results.js';
export {
  failureType,
  HOOK_ACTIONS,
  HOOK_RESULT_DEFAULTS,
  hookResult,
  sanitizeForLlm,
  serializeToolOutput,
  stringifyJson,
  TOOL_FAILURES,
} from './results.js';
// Schemas and validation of data
export type { DataSchemaName } from './schemas.js';
export {
  assertData,
  checkData,
  DATA_SCHEMA_BASE,
  DATA_SCHEMA_NAMES,
  formatDataErrors,
  loadSchema,
} from './schemas.js';
// Session and mount plan
export type { ExecuteOptions, ExecuteOutputOptions, ModuleFailure, SessionOptions } from './session.js';
export { AmplifierSession } from './session.js';
export type {
  ModuleInheritance,
  ProviderPreference,
  ResumeCapability,
  ResumeRequest,
  SpawnCapability,
  SpawnRequest,
  SpawnResult,
  SpawnUsage,
  SubSessionBudget,
} from './spawn.js';
export {
  DEFAULT_MAX_SUB_SESSIONS,
  DELEGATION_DEPTH_CAPABILITY,
  RESUME_CAPABILITY,
  SELF_DELEGATION_DEPTH_CAPABILITY,
  SPAWN_CAPABILITY,
  SUB_SESSION_BUDGET_CAPABILITY,
  subSessionBudgetMessage,
} from './spawn.js';
export type { StepInfo, StepRunner } from './step.js';
export { STEP_CAPABILITY } from './step.js';
export { FINAL_ANSWER_TOOL, StructuredOutputError } from './structured-output.js';
export { VERSION } from './version.js';
