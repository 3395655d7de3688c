/**
 * One small error hierarchy for the kernel. Every error carries a stable `code`
 * and a brand, so `AmplifierError.is(err)` works across two copies of core
 * (never rely on `instanceof` across package boundaries).
 */

const BRAND = Symbol.for('amplifier.error');

/** Stable error codes. Part of the public API: match on these, not on messages. */
export type ErrorCode =
  | 'MODULE_NOT_FOUND'
  | 'MODULE_LOAD_FAILED'
  | 'MODULE_INVALID_MANIFEST'
  | 'MODULE_INCOMPATIBLE'
  | 'MODULE_VALIDATION_FAILED'
  | 'MOUNT_PLAN_INVALID'
  | 'UNKNOWN_MOUNT_POINT'
  | 'MOUNT_FAILED'
  | 'SESSION_INVALID'
  | 'INJECTION_TOO_LARGE'
  | 'APPROVAL_TIMEOUT'
  | 'CANCELLED'
  | 'DATA_INVALID'
  | 'LLM_ERROR';

/** A path-qualified problem found while validating data (`tools[1].config must be object`). */
export interface DataError {
  /** Where in the value, as a JS-style path (`tools[1].config`), or `''` for the root. */
  path: string;
  /** What is wrong, in words a user can act on. */
  message: string;
}

/** Options of `AmplifierError` and its subclasses: the `cause`, kept as the standard `Error.cause`. */
export interface AmplifierErrorOptions {
  cause?: unknown;
}

/** Base class of every error the kernel throws on purpose. */
export class AmplifierError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options: AmplifierErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }

  /** True for any AmplifierError, including one thrown by another copy of core. */
  static is(value: unknown): value is AmplifierError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

// The brand lives on the prototype: found through the chain, invisible in JSON and logs.
Object.defineProperty(AmplifierError.prototype, BRAND, { value: true });

/** No resolver, source hint, conventional name or discovery root produced the module. */
export class ModuleNotFoundError extends AmplifierError {
  readonly moduleId: string;
  /** Every place that was looked at, in order. */
  readonly searched: readonly string[];
  constructor(
    moduleId: string,
    message: string,
    searched: readonly string[] = [],
    options?: AmplifierErrorOptions,
  ) {
    super('MODULE_NOT_FOUND', message, options);
    this.moduleId = moduleId;
    this.searched = searched;
  }
}

/** The module was found but could not be imported, or does not export what it must. */
export class ModuleLoadError extends AmplifierError {
  readonly moduleId: string;
  /** The module's package declares `"required": true` (the session must stop). */
  readonly required: boolean;
  constructor(
    moduleId: string,
    message: string,
    options?: AmplifierErrorOptions & { code?: ErrorCode; required?: boolean },
  ) {
    super(options?.code ?? 'MODULE_LOAD_FAILED', message, options);
    this.moduleId = moduleId;
    this.required = options?.required === true;
  }
}

/** A module failed structural or behavioural validation. */
export class ModuleValidationError extends AmplifierError {
  readonly moduleId: string;
  constructor(moduleId: string, message: string, options?: AmplifierErrorOptions) {
    super('MODULE_VALIDATION_FAILED', message, options);
    this.moduleId = moduleId;
  }
}

/** A mount plan (or other configuration data) is invalid; `errors` lists every problem. */
export class MountPlanError extends AmplifierError {
  readonly errors: readonly DataError[];
  constructor(message: string, errors: readonly DataError[], options?: AmplifierErrorOptions) {
    super('MOUNT_PLAN_INVALID', message, options);
    this.errors = errors;
  }
}

/** Data did not match its JSON Schema. */
export class DataValidationError extends AmplifierError {
  readonly errors: readonly DataError[];
  constructor(message: string, errors: readonly DataError[]) {
    super('DATA_INVALID', message);
    this.errors = errors;
  }
}

/** An approval provider did not answer in time. */
export class ApprovalTimeoutError extends AmplifierError {
  constructor(message = 'Approval request timed out') {
    super('APPROVAL_TIMEOUT', message);
  }
}

/**
 * Work was cancelled. Like Python's `CancelledError`, it is "fatal" for cleanup
 * loops: the remaining cleanups still run, then the first one is re-thrown.
 */
export class CancelledError extends AmplifierError {
  constructor(message = 'Operation cancelled', options?: AmplifierErrorOptions) {
    super('CANCELLED', message, options);
  }
}

/**
 * True for errors that must not be swallowed by cleanup and callback loops:
 * `CancelledError` and the platform's `AbortError`.
 */
export function isFatalError(error: unknown): boolean {
  if (AmplifierError.is(error)) return error.code === 'CANCELLED';
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** A printable message for any thrown value; never throws itself. */
export function errorMessage(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === 'string') return error;
    return String(error);
  } catch {
    try {
      return Object.prototype.toString.call(error);
    } catch {
      return '<unprintable error>';
    }
  }
}

/** The error's class name for event payloads (`{type, msg}`); never throws. */
export function errorType(error: unknown): string {
  try {
    if (error instanceof Error) return error.name || error.constructor.name;
    return typeof error;
  } catch {
    return 'Error';
  }
}
