/**
 * The LLM error taxonomy shared by every provider and orchestrator. Field names
 * of the error data are Amplifier's (`status_code`, `retry_after`, ...), so they
 * can be copied into `provider:error` event payloads as they are; camelCase
 * getters (`statusCode`, `retryAfter`, ...) read the same values.
 */
import { AmplifierError, type AmplifierErrorOptions, type ErrorCode } from './errors.js';

/**
 * The LLM error taxonomy, one row per kind: its class (and the parent kind
 * whose class that extends), whether it is retried by default (the reference's
 * table; false when absent), the HTTP statuses that mean it whatever the body
 * says (`'5xx'`: 500 to 599) and a default message. `LLMErrorKind`,
 * `LLM_ERROR_KINDS`, `LLM_ERROR_RETRYABLE` and the classes all come from it. Frozen.
 */
export const LLM_ERROR_TABLE = {
  unknown: { name: 'LLMError' },
  rate_limit: { name: 'RateLimitError', retryable: true, status: [429] },
  quota_exceeded: { name: 'QuotaExceededError', parent: 'rate_limit', status: [402] },
  authentication: { name: 'AuthenticationError', status: [401] },
  access_denied: { name: 'AccessDeniedError', parent: 'authentication', status: [403] },
  context_length: { name: 'ContextLengthError', status: [413] },
  content_filter: { name: 'ContentFilterError' },
  invalid_request: { name: 'InvalidRequestError' },
  unavailable: { name: 'ProviderUnavailableError', retryable: true, status: ['5xx'] },
  network: { name: 'NetworkError', parent: 'unavailable', retryable: true },
  timeout: { name: 'LLMTimeoutError', retryable: true, status: [408] },
  not_found: { name: 'NotFoundError', status: [404] },
  stream: { name: 'StreamError', retryable: true },
  abort: { name: 'AbortError', message: 'Request aborted' },
  invalid_tool_call: { name: 'InvalidToolCallError' },
  configuration: { name: 'ConfigurationError' },
} as const;

/** One row of `LLM_ERROR_TABLE`. */
export interface LLMErrorKindInfo {
  readonly name: string;
  readonly parent?: string;
  readonly retryable?: boolean;
  readonly status?: readonly (number | '5xx')[];
  readonly message?: string;
}

/** Every kind of LLM failure (the keys of `LLM_ERROR_TABLE`). `kind` is the stable discriminator across copies of core. */
export type LLMErrorKind = keyof typeof LLM_ERROR_TABLE;

const ROWS: Readonly<Record<LLMErrorKind, LLMErrorKindInfo>> = LLM_ERROR_TABLE; // also checks the rows
for (const row of Object.values(ROWS)) Object.freeze(Object.freeze(row).status);
Object.freeze(LLM_ERROR_TABLE);

/** Every kind, for validation of configuration (provider-mock scripts, ...). */
export const LLM_ERROR_KINDS = Object.freeze(Object.keys(ROWS)) as readonly LLMErrorKind[];

/** Default `retryable` per kind (the reference's table). */
export const LLM_ERROR_RETRYABLE: Readonly<Record<LLMErrorKind, boolean>> = Object.freeze(
  Object.fromEntries(LLM_ERROR_KINDS.map((kind) => [kind, ROWS[kind].retryable === true])),
) as Record<LLMErrorKind, boolean>;

/** Options of `LLMError` and its subclasses, named like its fields (snake_case, as in `provider:error` payloads). */
export interface LLMErrorOptions extends AmplifierErrorOptions {
  provider?: string;
  model?: string;
  status_code?: number;
  /** Overrides the kind's default. */
  retryable?: boolean;
  /** Seconds the server asked to wait (HTTP `Retry-After`). */
  retry_after?: number;
  /** Where `retry_after` was read: a header name (`retry-after-ms`, `retry-after`, ...) or `body`. */
  retry_after_source?: string;
  /** Multiplies the computed backoff delay (after the cap). */
  delay_multiplier?: number;
}

/** AmplifierError's constructor without its static side: `LLMError.is` filters by kind, not code. */
const AmplifierErrorBase: new (
  code: ErrorCode,
  message: string,
  options?: AmplifierErrorOptions,
) => AmplifierError = AmplifierError;

/**
 * Base of the taxonomy; `retryable` defaults per kind. Own fields keep
 * Amplifier's snake_case data names (copied into event payloads, serialized);
 * the camelCase getters live on the prototype, so JSON and spreads show only the former.
 */
export class LLMError extends AmplifierErrorBase {
  readonly kind: LLMErrorKind;
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly status_code: number | undefined;
  readonly retryable: boolean;
  readonly retry_after: number | undefined;
  readonly delay_multiplier: number;
  /** Where `retry_after` was read (a header name, or `body`); absent when unknown. */
  declare readonly retry_after_source?: string;

  constructor(message?: string, options: LLMErrorOptions = {}, kind: LLMErrorKind = 'unknown') {
    super('LLM_ERROR', message ?? ROWS[kind].message ?? `LLM request failed (${kind})`, options);
    this.kind = kind;
    this.provider = options.provider;
    this.model = options.model;
    this.status_code = options.status_code;
    this.retryable = options.retryable ?? LLM_ERROR_RETRYABLE[kind];
    this.retry_after = options.retry_after;
    this.delay_multiplier = options.delay_multiplier ?? 1;
    if (options.retry_after_source !== undefined) {
      Object.defineProperty(this, 'retry_after_source', {
        value: options.retry_after_source,
        enumerable: true,
      });
    }
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
   * The one way to test for an LLM error (with `kind`: of that exact kind), also
   * from another copy of core: a brand check, never `instanceof`. Subclasses
   * inherit it unchanged (`RateLimitError.is(x)` is `LLMError.is(x)`): filter by kind.
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
}

/** The constructor of one kind's class: `new RateLimitError(message?, options?)` (the message defaults to the kind's). */
export interface LLMErrorClass {
  new (message?: string, options?: LLMErrorOptions): LLMError;
  readonly prototype: LLMError;
  /** `LLMError.is`: filter by kind, not by class. */
  is: typeof LLMError.is;
}

/** Each kind's class, made from its row (parents come first in the table); `invalid_tool_call`'s is written out below. */
const CLASSES: Partial<Record<LLMErrorKind, LLMErrorClass>> = { unknown: LLMError };

/** The class of `kind`, a subclass of its row's parent, named after the row. */
function kindClass(kind: LLMErrorKind): LLMErrorClass {
  const parent = ROWS[kind].parent as LLMErrorKind | undefined;
  const Parent = (parent === undefined ? undefined : CLASSES[parent]) ?? LLMError;
  const Base = Parent as new (message?: string, options?: LLMErrorOptions, kind?: LLMErrorKind) => LLMError;
  const Class = class extends Base {
    constructor(message?: string, options: LLMErrorOptions = {}, own: LLMErrorKind = kind) {
      super(message, options, own);
    }
  };
  Object.defineProperty(Class, 'name', { value: ROWS[kind].name });
  CLASSES[kind] = Class as LLMErrorClass;
  return Class as LLMErrorClass;
}

/** HTTP 429. Retryable. */
export const RateLimitError: LLMErrorClass = kindClass('rate_limit');
/** The account is out of quota (HTTP 402): not retryable, although it is a rate limit. */
export const QuotaExceededError: LLMErrorClass = kindClass('quota_exceeded');
/** HTTP 401. */
export const AuthenticationError: LLMErrorClass = kindClass('authentication');
/** HTTP 403. */
export const AccessDeniedError: LLMErrorClass = kindClass('access_denied');
/** The request does not fit the model's context window (HTTP 413 or provider-specific). */
export const ContextLengthError: LLMErrorClass = kindClass('context_length');
/** The provider's safety filter refused the content. */
export const ContentFilterError: LLMErrorClass = kindClass('content_filter');
/** HTTP 400/422. */
export const InvalidRequestError: LLMErrorClass = kindClass('invalid_request');
/** HTTP 5xx, overloaded (529). Retryable. */
export const ProviderUnavailableError: LLMErrorClass = kindClass('unavailable');
/** No HTTP response at all (connection refused, reset, DNS). Retryable. */
export const NetworkError: LLMErrorClass = kindClass('network');
/** The request took longer than its timeout (HTTP 408). Retryable. */
export const LLMTimeoutError: LLMErrorClass = kindClass('timeout');
/** HTTP 404 (unknown model or endpoint). */
export const NotFoundError: LLMErrorClass = kindClass('not_found');
/** The stream failed midway. Retryable. */
export const StreamError: LLMErrorClass = kindClass('stream');
/** The caller aborted the request. */
export const AbortError: LLMErrorClass = kindClass('abort');
/** The provider is configured wrongly (missing model, bad base URL, ...). */
export const ConfigurationError: LLMErrorClass = kindClass('configuration');

/** The model produced a tool call that cannot be parsed. */
export class InvalidToolCallError extends LLMError {
  readonly tool_name: string | undefined;
  readonly raw_arguments: string | undefined;
  constructor(
    message?: string,
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
CLASSES.invalid_tool_call = InvalidToolCallError;

/** Build the right subclass for a kind (the message defaults to the kind's). */
export function createLLMError(
  kind: LLMErrorKind,
  message?: string,
  options: LLMErrorOptions = {},
): LLMError {
  const Class = (Object.hasOwn(CLASSES, kind) ? CLASSES[kind] : undefined) ?? LLMError;
  return new Class(message, options);
}
