/**
 * The bundle errors of the reference (`BundleError` and its four kinds), declared
 * in core's error factory: each is an `AmplifierError` with a `BUNDLE_*` code.
 * Each message names the bundle (its file or URI), the include chain that led to
 * it, and what to do.
 */
import {
  AmplifierError,
  type AmplifierErrorOptions,
  type CodesOf,
  defineErrors,
  type ErrorCode,
  type ErrorTable,
} from '@amplifier/core';

const rows = {
  BUNDLE_ERROR: { name: 'BundleError', description: 'several bundle failures gathered (`problems`)' },
  BUNDLE_NOT_FOUND: { name: 'BundleNotFoundError', description: 'no bundle at the path, name or URI given' },
  BUNDLE_LOAD_FAILED: {
    name: 'BundleLoadError',
    description: 'a file that cannot be read or parsed (bad YAML, unknown suffix, no bundle.md/bundle.yaml)',
  },
  BUNDLE_INVALID: {
    name: 'BundleValidationError',
    description: 'a bundle whose content has the wrong shape (`tools[2]` is not a mapping, ...)',
  },
  BUNDLE_DEPENDENCY_FAILED: {
    name: 'BundleDependencyError',
    description: 'an include that cannot be resolved or fetched, a cycle, an unknown namespace',
  },
} as const;

/** The codes of this package, one per class (the thrower writes the message). */
export const BUNDLE_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof BUNDLE_ERRORS> {}
}

/** A code of this package. */
export type BundleErrorCode = keyof typeof rows;

/** Options of the bundle errors. */
export interface BundleErrorOptions {
  cause?: unknown;
  problems?: readonly BundleError[];
}

/** AmplifierError's constructor without its static side (`BundleError.is` takes no code). */
const Base: new (code: ErrorCode, message: string, options?: AmplifierErrorOptions) => AmplifierError =
  AmplifierError;

/** Base class of every bundle error (code `BUNDLE_ERROR` when it gathers several). */
export class BundleError extends Base {
  /** The failures this error gathers (every include that failed), each naming its chain; empty for one failure. */
  readonly problems: readonly BundleError[];
  declare readonly code: BundleErrorCode;

  constructor(message: string, options?: BundleErrorOptions, code: BundleErrorCode = 'BUNDLE_ERROR') {
    super(code, message, options);
    this.problems = options?.problems ?? [];
  }

  /** True for an error of this package (any `BUNDLE_*` code), also one from a second copy of it. */
  static is(value: unknown): value is BundleError {
    return BUNDLE_ERRORS.is(value);
  }
}

/** No bundle at the path, name or URI given. */
export class BundleNotFoundError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options, 'BUNDLE_NOT_FOUND');
  }
}

/** A file that cannot be read or parsed (bad YAML, unknown suffix, a directory without bundle.md/bundle.yaml). */
export class BundleLoadError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options, 'BUNDLE_LOAD_FAILED');
  }
}

/** A bundle whose content has the wrong shape (`tools[2]` is not a mapping, ...). */
export class BundleValidationError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options, 'BUNDLE_INVALID');
  }
}

/** An include that cannot be resolved or fetched, a cycle, an unknown namespace. */
export class BundleDependencyError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options, 'BUNDLE_DEPENDENCY_FAILED');
  }
}

/** `a -> b -> c`, for messages. */
export function describeChain(chain: readonly string[]): string {
  return chain.join(' -> ');
}
