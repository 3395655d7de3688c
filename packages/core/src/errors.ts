/**
 * One error hierarchy for the kernel and all built on it: every error has a stable `code` from an
 * error table (`defineErrors`) and a brand, so `AmplifierError.is(err, code?)` works across copies of core.
 */

import type { ToolFailure } from './results.js';

const BRAND = Symbol.for('amplifier.error');

/** One row of an error table (`ERROR_CODES`, or a module's own through `defineErrors`). */
export interface ErrorCodeInfo {
  /** The `name` of the errors thrown with this code: their class (`LLM_ERROR`: `LLMError` or a subclass). */
  readonly name: string;
  /** When it is thrown, in one line. */
  readonly description: string;
  /** The message template (`{param}`: that parameter); without one the thrower gives a `message` parameter. */
  readonly message?: string;
  /** What to do, a template like `message`: kept as `error.fix` and appended to the message. */
  readonly fix?: string;
}

type Slots<S> = S extends `${string}{${infer K}}${infer Rest}` ? K | Slots<Rest> : never;

/** The parameters of a row: one per placeholder of its templates; `message` when it has no message template. */
export type ErrorParams<R extends ErrorCodeInfo> = {
  readonly [K in Slots<R['fix']> | (R extends { readonly message: infer M } ? Slots<M> : 'message')]: unknown;
};

type ErrorArgs<R extends ErrorCodeInfo, More extends unknown[] = []> = keyof ErrorParams<R> extends never
  ? [params?: ErrorParams<R>, ...More]
  : [params: ErrorParams<R>, ...More];

/** An error table made by `defineErrors`: its frozen rows, and what builds and checks its errors. */
export interface ErrorTable<T extends Readonly<Record<string, ErrorCodeInfo>>> {
  readonly codes: T;
  /** The message of `code` (its fix appended) from its templates and `params`. */
  message<C extends keyof T & string>(code: C, ...args: ErrorArgs<T[C]>): string;
  /** A new `AmplifierError` of `code` named after its row, with its message, `fix` and `cause`. */
  create<C extends keyof T & string>(
    code: C,
    ...args: ErrorArgs<T[C], [options?: AmplifierErrorOptions]>
  ): AmplifierError & { readonly code: C };
  /** True for an error of this table's codes (with `code`: of that one), from any copy of core. */
  is<C extends keyof T & string>(value: unknown, code?: C): value is AmplifierError & { readonly code: C };
}

/**
 * Codes declared by kits and modules (module augmentation), so that `ErrorCode`,
 * `new AmplifierError(code, ...)` and `AmplifierError.is` know them:
 * `declare module '@amplifier/core' { interface DeclaredErrorCodes extends CodesOf<typeof MY_ERRORS> {} }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation
export interface DeclaredErrorCodes {}

/** The codes of a table, as `DeclaredErrorCodes` takes them. */
export type CodesOf<T extends { readonly codes: object }> = { readonly [K in keyof T['codes']]: true };

/**
 * Declare an error table: each code with its class name, a one-line description,
 * a message template and an optional fix (`{param}` placeholders, typed: an
 * unknown code or a missing parameter does not compile). Frozen. Codes are
 * global: prefix a module's own (`BUNDLE_`) and add them to `DeclaredErrorCodes`.
 */
export function defineErrors<const T extends Readonly<Record<string, ErrorCodeInfo>>>(
  codes: T,
): ErrorTable<T> {
  for (const row of Object.values(codes)) Object.freeze(row);
  Object.freeze(codes);
  const text = (code: string, params: Readonly<Record<string, unknown>> = {}): [string, string?] => {
    const { message, fix } = codes[code] as ErrorCodeInfo;
    const fill = (template: string): string =>
      template.replace(/\{(\w+)\}/g, (all, key: string) =>
        Object.hasOwn(params, key) ? String(params[key]) : all,
      );
    const what = message === undefined ? String(params.message ?? '') : fill(message);
    return fix === undefined ? [what] : [`${what} ${fill(fix)}`.trim(), fill(fix)];
  };
  return {
    codes,
    message: ((code: string, params?: Record<string, unknown>) =>
      text(code, params)[0]) as ErrorTable<T>['message'],
    create: ((code: string, params?: Record<string, unknown>, options: AmplifierErrorOptions = {}) => {
      const [message, fix] = text(code, params);
      const error = new AmplifierError(code as ErrorCode, message, { ...options, ...(fix && { fix }) });
      error.name = (codes[code] as ErrorCodeInfo).name;
      return error;
    }) as ErrorTable<T>['create'],
    is: ((value: unknown, code?: string) =>
      AmplifierError.is(value) &&
      Object.hasOwn(codes, value.code) &&
      (code === undefined || value.code === code)) as ErrorTable<T>['is'],
  };
}

/**
 * Every kernel error code, its class and when it is thrown (the README's "Errors" table says
 * more; a test keeps them in step). Stable public API: match on codes, not messages. Frozen.
 */
export const ERROR_CODES = {
  MODULE_NOT_FOUND: { name: 'ModuleNotFoundError', description: 'no place has the module (`searched`)' },
  MODULE_LOAD_FAILED: { name: 'ModuleLoadError', description: 'its import failed, or it has no `mount`' },
  MODULE_INVALID_MANIFEST: { name: 'ModuleLoadError', description: 'an invalid package.json or manifest' },
  MODULE_INCOMPATIBLE: { name: 'ModuleLoadError', description: 'the wrong module type or core range' },
  MODULE_UNAVAILABLE: { name: 'ModuleLoadError', description: 'a placeholder package (not built yet)' },
  MODULE_ALIAS_CONFLICT: { name: 'ModuleLoadError', description: 'several modules claim the alias' },
  MODULE_VALIDATION_FAILED: { name: 'ModuleValidationError', description: 'a module failed validation' },
  MOUNT_PLAN_INVALID: { name: 'MountPlanError', description: 'an invalid mount plan (`errors`)' },
  UNKNOWN_MOUNT_POINT: { name: 'AmplifierError', description: 'a mount or unmount named no mount point' },
  MOUNT_FAILED: { name: 'AmplifierError', description: 'a module could not be mounted' },
  SESSION_INVALID: { name: 'AmplifierError', description: 'no orchestrator, context or provider' },
  INJECTION_TOO_LARGE: { name: 'AmplifierError', description: "a hook's injection is over the limit" },
  APPROVAL_TIMEOUT: {
    name: 'ApprovalTimeoutError',
    description: "an approval provider did not answer in time; the hook's `approval_default` applies",
    message: 'Approval request timed out',
  },
  CANCELLED: {
    name: 'CancelledError',
    description: 'work was cancelled; fatal for cleanup loops (the rest run, then it is re-thrown)',
    message: 'Operation cancelled',
  },
  CONFIG_REFUSED: { name: 'ConfigRefusedError', description: 'a config key refused as less safe' },
  DATA_INVALID: { name: 'DataValidationError', description: 'data or a schema is invalid (`errors`)' },
  LLM_ERROR: { name: 'LLMError', description: 'a provider failure; `kind` says which' },
  OUTPUT_INVALID: {
    name: 'StructuredOutputError',
    description: 'a turn with `output` gave no valid answer, repair turn included (`text`, `attempts`)',
  },
} as const;
defineErrors(ERROR_CODES); // checks and freezes the rows

/** Stable error codes: core's (`ERROR_CODES`, `TOOL_FAILURES`) and those modules declare. Match on these, not on messages. */
export type ErrorCode = keyof typeof ERROR_CODES | ToolFailure | keyof DeclaredErrorCodes;

/** A path-qualified problem found while validating data (`tools[1].config must be object`). */
export interface DataError {
  /** Where in the value, as a JS-style path (`tools[1].config`), or `''` for the root. */
  path: string;
  /** What is wrong, in words a user can act on. */
  message: string;
}

/** Options of `AmplifierError` and its subclasses: the `cause` (the standard `Error.cause`) and what to do (`fix`). */
export interface AmplifierErrorOptions {
  cause?: unknown;
  /** What to do about it, in one sentence; set as `error.fix` (the message already says it). */
  fix?: string;
}

/** Base class of every error the kernel throws on purpose. */
export class AmplifierError extends Error {
  readonly code: ErrorCode;
  /** What to do about it (also at the end of the message); absent, not undefined, when unknown. */
  declare readonly fix?: string;

  constructor(code: ErrorCode, message: string, options: AmplifierErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
    // An own field only when known: errors without one serialize as they always did.
    if (options.fix !== undefined) (this as { fix?: string }).fix = options.fix;
  }

  /**
   * The one way to test for a kernel error: true for any AmplifierError (with
   * `code`: only one of that code), including one thrown by another copy of
   * core in the same process. It checks a brand on the prototype, not
   * `instanceof`. Subclasses inherit it unchanged (`ModuleLoadError.is(x)` is
   * `AmplifierError.is(x)`): filter by code. For LLM errors, `LLMError.is(x, kind?)`.
   */
  static is<C extends ErrorCode = ErrorCode>(
    value: unknown,
    code?: C,
  ): value is AmplifierError & { readonly code: C } {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[BRAND] === true &&
      (code === undefined || (value as { code?: unknown }).code === code)
    );
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

/**
 * A config key refused because ignoring it would make the session less safe
 * than the user asked. `required` is true: the session does not start without
 * the module (running without a policy the user wrote is what the refusal prevents).
 */
export class ConfigRefusedError extends AmplifierError {
  readonly moduleId: string;
  /** The refused keys, as paths (`rules[0].acton`). */
  readonly keys: readonly string[];
  /** A refused setting stops the session, like a required module that failed. */
  readonly required = true;
  constructor(moduleId: string, keys: readonly string[], message: string) {
    super('CONFIG_REFUSED', message);
    this.moduleId = moduleId;
    this.keys = keys;
  }
}

/** An approval provider did not answer in time. */
export class ApprovalTimeoutError extends AmplifierError {
  constructor(message: string = ERROR_CODES.APPROVAL_TIMEOUT.message) {
    super('APPROVAL_TIMEOUT', message);
  }
}

/**
 * Work was cancelled. Like Python's `CancelledError`, it is "fatal" for cleanup
 * loops: the remaining cleanups still run, then the first one is re-thrown.
 */
export class CancelledError extends AmplifierError {
  constructor(message: string = ERROR_CODES.CANCELLED.message, options?: AmplifierErrorOptions) {
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
