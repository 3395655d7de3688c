/**
 * The LLM error taxonomy shared by every provider and orchestrator. Field names
 * of the error data are Amplifier's (`status_code`, `retry_after`, ...), so they
 * can be copied into `provider:error` event payloads as they are; camelCase
 * getters (`statusCode`, `retryAfter`, ...) read the same values.
 */
import { AmplifierError, type AmplifierErrorOptions, type ErrorCode } from './errors.js';

/** Every kind of LLM failure. `kind` is the stable discriminator across copies of core. */
export type LLMErrorKind =
  | 'unknown'
  | 'rate_limit'
  | 'quota_exceeded'
  | 'authentication'
  | 'access_denied'
  | 'context_length'
  | 'content_filter'
  | 'invalid_request'
  | 'unavailable'
  | 'network'
  | 'timeout'
  | 'not_found'
  | 'stream'
  | 'abort'
  | 'invalid_tool_call'
  | 'configuration';

/**
 * Options of `LLMError` and its subclasses: `provider`, `model`, `status_code`,
 * `retryable`, `retry_after` (seconds), `delay_multiplier` and `cause`. Named like
 * the error's fields (snake_case), which go into `provider:error` payloads as they
 * are.
 */
export interface LLMErrorOptions extends AmplifierErrorOptions {
  provider?: string;
  model?: string;
  status_code?: number;
  /** Overrides the kind's default. */
  retryable?: boolean;
  /** Seconds the server asked to wait (HTTP `Retry-After`). */
  retry_after?: number;
  /** Multiplies the computed backoff delay (after the cap). */
  delay_multiplier?: number;
}

/**
 * AmplifierError's constructor, typed without its static side: `LLMError.is`
 * filters by kind where `AmplifierError.is` filters by code, and TypeScript
 * would otherwise require the two signatures to be interchangeable.
 */
const AmplifierErrorBase: new (
  code: ErrorCode,
  message: string,
  options?: AmplifierErrorOptions,
) => AmplifierError = AmplifierError;

/**
 * Base of the taxonomy. `retryable` defaults per kind (see `LLM_ERROR_RETRYABLE`).
 *
 * Naming: the own fields keep Amplifier's snake_case data names (`status_code`,
 * `retry_after`, `delay_multiplier`) because they are copied into event payloads
 * and appear in serialized errors; the camelCase getters (`statusCode`,
 * `retryAfter`, `delayMultiplier`) read the same values for code that prefers
 * JS names. The getters live on the prototype, so `JSON.stringify(error)` and
 * `{ ...error }` show the snake_case fields only, as before.
 */
export class LLMError extends AmplifierErrorBase {
  readonly kind: LLMErrorKind;
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly status_code: number | undefined;
  readonly retryable: boolean;
  readonly retry_after: number | undefined;
  readonly delay_multiplier: number;

  constructor(message: string, options: LLMErrorOptions = {}, kind: LLMErrorKind = 'unknown') {
    super('LLM_ERROR', message, options);
    this.kind = kind;
    this.provider = options.provider;
    this.model = options.model;
    this.status_code = options.status_code;
    this.retryable = options.retryable ?? LLM_ERROR_RETRYABLE[kind];
    this.retry_after = options.retry_after;
    this.delay_multiplier = options.delay_multiplier ?? 1;
  }

  /** `status_code`, camelCase. */
  get statusCode(): number | undefined {
    return this.status_code;
  }

  /** `retry_after` (seconds), camelCase. */
  get retryAfter(): number | undefined {
    return this.retry_after;
  }

  /** `delay_multiplier`, camelCase. */
  get delayMultiplier(): number {
    return this.delay_multiplier;
  }

  /**
   * The one way to test for an LLM error: true for an LLMError (with `kind`:
   * only one of that kind; a `QuotaExceededError` is `quota_exceeded`, not
   * `rate_limit`), including one from another copy of core in the same process.
   * The same brand check as `AmplifierError.is(value, 'LLM_ERROR')`, never
   * `instanceof`. Subclasses inherit it unchanged: `RateLimitError.is(x)` is
   * `LLMError.is(x)`; filter by kind.
   */
  static is<K extends LLMErrorKind = LLMErrorKind>(
    value: unknown,
    kind?: K,
  ): value is LLMError & { readonly kind: K } {
    return (
      AmplifierError.is(value, 'LLM_ERROR') &&
      (kind === undefined || (value as { kind?: unknown }).kind === kind)
    );
  }

  /** @deprecated Use `LLMError.is(value)`, which can also filter by kind. */
  static isLLMError(value: unknown): value is LLMError {
    return LLMError.is(value);
  }
}

/** Default `retryable` per kind (the reference's table). */
export const LLM_ERROR_RETRYABLE: Readonly<Record<LLMErrorKind, boolean>> = {
  unknown: false,
  rate_limit: true,
  quota_exceeded: false,
  authentication: false,
  access_denied: false,
  context_length: false,
  content_filter: false,
  invalid_request: false,
  unavailable: true,
  network: true,
  timeout: true,
  not_found: false,
  stream: true,
  abort: false,
  invalid_tool_call: false,
  configuration: false,
};

/** HTTP 429. Retryable. */
export class RateLimitError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}, kind: LLMErrorKind = 'rate_limit') {
    super(message, options, kind);
  }
}
/** The account is out of quota: not retryable, although it is a rate limit. */
export class QuotaExceededError extends RateLimitError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'quota_exceeded');
  }
}
/** HTTP 401. */
export class AuthenticationError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}, kind: LLMErrorKind = 'authentication') {
    super(message, options, kind);
  }
}
/** HTTP 403. */
export class AccessDeniedError extends AuthenticationError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'access_denied');
  }
}
/** The request does not fit the model's context window (HTTP 413 or provider-specific). */
export class ContextLengthError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'context_length');
  }
}
/** The provider's safety filter refused the content. */
export class ContentFilterError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'content_filter');
  }
}
/** HTTP 400/422. */
export class InvalidRequestError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'invalid_request');
  }
}
/** HTTP 5xx, overloaded (529). Retryable. */
export class ProviderUnavailableError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}, kind: LLMErrorKind = 'unavailable') {
    super(message, options, kind);
  }
}
/** No HTTP response at all (connection refused, reset, DNS). Retryable. */
export class NetworkError extends ProviderUnavailableError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'network');
  }
}
/** The request took longer than its timeout. Retryable. */
export class LLMTimeoutError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'timeout');
  }
}
/** HTTP 404 (unknown model or endpoint). */
export class NotFoundError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'not_found');
  }
}
/** The stream failed midway. Retryable. */
export class StreamError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'stream');
  }
}
/** The caller aborted the request. */
export class AbortError extends LLMError {
  constructor(message = 'Request aborted', options: LLMErrorOptions = {}) {
    super(message, options, 'abort');
  }
}
/** The model produced a tool call that cannot be parsed. */
export class InvalidToolCallError extends LLMError {
  readonly tool_name: string | undefined;
  readonly raw_arguments: string | undefined;
  constructor(
    message: string,
    options: LLMErrorOptions & { tool_name?: string; raw_arguments?: string } = {},
  ) {
    super(message, options, 'invalid_tool_call');
    this.tool_name = options.tool_name;
    this.raw_arguments = options.raw_arguments;
  }

  /** `tool_name`, camelCase. */
  get toolName(): string | undefined {
    return this.tool_name;
  }

  /** `raw_arguments`, camelCase. */
  get rawArguments(): string | undefined {
    return this.raw_arguments;
  }
}
/** The provider is configured wrongly (missing model, bad base URL, ...). */
export class ConfigurationError extends LLMError {
  constructor(message: string, options: LLMErrorOptions = {}) {
    super(message, options, 'configuration');
  }
}

const CLASS_BY_KIND: Record<LLMErrorKind, new (message: string, options?: LLMErrorOptions) => LLMError> = {
  unknown: LLMError,
  rate_limit: RateLimitError,
  quota_exceeded: QuotaExceededError,
  authentication: AuthenticationError,
  access_denied: AccessDeniedError,
  context_length: ContextLengthError,
  content_filter: ContentFilterError,
  invalid_request: InvalidRequestError,
  unavailable: ProviderUnavailableError,
  network: NetworkError,
  timeout: LLMTimeoutError,
  not_found: NotFoundError,
  stream: StreamError,
  abort: AbortError,
  invalid_tool_call: InvalidToolCallError,
  configuration: ConfigurationError,
};

/** Every kind, for validation of configuration (provider-mock scripts, ...). */
export const LLM_ERROR_KINDS: readonly LLMErrorKind[] = Object.keys(CLASS_BY_KIND) as LLMErrorKind[];

/** Build the right subclass for a kind. */
export function createLLMError(kind: LLMErrorKind, message: string, options: LLMErrorOptions = {}): LLMError {
  const Class = CLASS_BY_KIND[kind] ?? LLMError;
  return new Class(message, options);
}
