/**
 * AWS SDK failures as core's LLMError kinds. The SDK names each error by the
 * exception Bedrock reports (the `x-amzn-ErrorType` header of an error
 * response, or the `:exception-type` of an exception frame inside a stream);
 * `$metadata.httpStatusCode` is the HTTP status (absent for in-stream
 * frames: the status their type stands for is used). A failure without a
 * response (refused, reset, timed out, aborted) is the transport's, mapped as
 * every HTTP provider's (`transportError`). The SDK's own retries are off:
 * the kit's retry policy decides from `retryable`.
 */
import { createLLMError, errorMessage, LLMError, type LLMErrorKind } from '@amplifier/core';
import {
  CONTEXT_LENGTH_PATTERN,
  classifyErrorMessage,
  type RequestContext,
  transportError,
} from '@amplifier/provider-http';

/** One Bedrock exception: its kind, whether another try may help, and the status it stands for. */
interface ExceptionRow {
  kind: LLMErrorKind;
  retryable: boolean;
  status: number;
}

/**
 * Bedrock Runtime's exceptions (Converse / ConverseStream, HTTP and
 * in-stream) and the SDK's auth errors. ServiceQuotaExceeded asks to
 * "resubmit later" and ModelNotReady to wait for the model: both retried.
 */
const EXCEPTIONS: Readonly<Record<string, ExceptionRow>> = {
  ThrottlingException: { kind: 'rate_limit', retryable: true, status: 429 },
  ServiceQuotaExceededException: { kind: 'rate_limit', retryable: true, status: 400 },
  ModelNotReadyException: { kind: 'unavailable', retryable: true, status: 429 },
  ValidationException: { kind: 'invalid_request', retryable: false, status: 400 },
  AccessDeniedException: { kind: 'access_denied', retryable: false, status: 403 },
  ResourceNotFoundException: { kind: 'not_found', retryable: false, status: 404 },
  ModelTimeoutException: { kind: 'timeout', retryable: true, status: 408 },
  ModelErrorException: { kind: 'unavailable', retryable: true, status: 424 },
  ModelStreamErrorException: { kind: 'stream', retryable: true, status: 424 },
  InternalServerException: { kind: 'unavailable', retryable: true, status: 500 },
  ServiceUnavailableException: { kind: 'unavailable', retryable: true, status: 503 },
  ConflictException: { kind: 'invalid_request', retryable: false, status: 400 },
  UnrecognizedClientException: { kind: 'authentication', retryable: false, status: 403 },
  InvalidSignatureException: { kind: 'authentication', retryable: false, status: 403 },
  IncompleteSignatureException: { kind: 'authentication', retryable: false, status: 403 },
  MissingAuthenticationTokenException: { kind: 'authentication', retryable: false, status: 403 },
  ExpiredTokenException: { kind: 'authentication', retryable: false, status: 403 },
  InvalidClientTokenId: { kind: 'authentication', retryable: false, status: 403 },
};

/** Bedrock's own wordings of a prompt that does not fit ("Input is too long for requested model."). */
const BEDROCK_CONTEXT_LENGTH =
  /input is too long|too many input tokens|exceeds? the (model's )?(context|maximum input)/i;

/** The SDK's error shape (a `ServiceException`): the fields read here. */
interface SdkError {
  name?: unknown;
  message?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown; requestId?: unknown };
}

/** The SDK's "no credentials" / "no region" failures: configuration, not worth a retry. */
const SETUP_ERRORS = new Set(['CredentialsProviderError', 'TokenProviderError', 'ProviderError']);

/** A Bedrock exception type without the SDK's casing quirks (`throttlingException` in a stream frame). */
function exceptionName(name: string): string {
  const bare = name.split(':')[0]!;
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

/**
 * Any failure of an SDK call as an LLMError. `midStream`: the response had
 * started (a dropped connection is then a `stream` error).
 */
export function bedrockError(
  error: unknown,
  context: RequestContext,
  signal: AbortSignal | undefined,
  midStream: boolean,
): LLMError {
  if (LLMError.is(error)) return error;
  if (signal?.aborted) return transportError(error, context, signal, midStream);
  const sdk = (typeof error === 'object' && error !== null ? error : {}) as SdkError;
  const name = typeof sdk.name === 'string' ? exceptionName(sdk.name) : '';
  const message = errorMessage(error);
  const status = typeof sdk.$metadata?.httpStatusCode === 'number' ? sdk.$metadata.httpStatusCode : undefined;
  if (SETUP_ERRORS.has(name) || /region is missing/i.test(message)) {
    return createLLMError(
      'configuration',
      `${context.provider}: AWS credentials or region could not be resolved (${message}); set AWS_BEARER_TOKEN_BEDROCK or AWS credentials (AWS_PROFILE / aws_profile, AWS_ACCESS_KEY_ID, SSO), and aws_region or AWS_REGION`,
      { ...context, cause: error, retryable: false },
    );
  }
  const row = Object.hasOwn(EXCEPTIONS, name) ? EXCEPTIONS[name] : undefined;
  if (row === undefined && status === undefined && sdk.$fault === undefined) {
    // No response at all: refused, reset, timed out, or the body broke off.
    return transportError(error, context, signal, midStream);
  }
  if (row === undefined && status !== undefined && status >= 200 && status < 300) {
    // A 2xx answer the SDK could not decode (not an event stream, a frame cut short, a bad CRC).
    return createLLMError(
      'stream',
      `${context.provider}: the answer (HTTP ${status}) could not be read as Bedrock's: ${message}`,
      { ...context, cause: error },
    );
  }
  let kind: LLMErrorKind =
    row?.kind ?? classifyErrorMessage(message, status === undefined ? {} : { status_code: status });
  if (
    (kind === 'invalid_request' || kind === 'unknown') &&
    (CONTEXT_LENGTH_PATTERN.test(message) || BEDROCK_CONTEXT_LENGTH.test(message))
  )
    kind = 'context_length';
  if (kind === 'unknown' && status === undefined) kind = 'stream';
  const code = status ?? row?.status;
  const requestId =
    typeof sdk.$metadata?.requestId === 'string' ? ` [x-amzn-requestid ${sdk.$metadata.requestId}]` : '';
  const where =
    status !== undefined ? `HTTP ${status}` : code !== undefined ? `in-stream, ${code}` : 'in-stream';
  const type = name !== '' && name !== 'Unknown' && name !== 'Error' ? ` ${name}` : '';
  return createLLMError(kind, `${context.provider} (${where}${type}): ${message}${requestId}`, {
    ...context,
    cause: error,
    ...(code !== undefined && { status_code: code }),
    ...(kind !== 'context_length' && row !== undefined && { retryable: row.retryable }),
  });
}
