/**
 * The bundle errors of the reference (`BundleError` and its four kinds). Each
 * message names the bundle (its file or URI), the include chain that led to
 * it, and what to do.
 */

/** Options of the bundle errors. */
export interface BundleErrorOptions {
  cause?: unknown;
  problems?: readonly BundleError[];
}

/** Base class of every bundle error. */
export class BundleError extends Error {
  /** The failures this error gathers (every include that failed), each naming its chain; empty for one failure. */
  readonly problems: readonly BundleError[];

  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BundleError';
    this.problems = options?.problems ?? [];
  }

  /** True for a `BundleError` of this package, also one from a second copy of it. */
  static is(value: unknown): value is BundleError {
    return value instanceof Error && /^Bundle[A-Za-z]*Error$/.test(value.name) && 'bundleError' in value;
  }

  /** Brand checked by `BundleError.is`. */
  get bundleError(): true {
    return true;
  }
}

/** No bundle at the path, name or URI given. */
export class BundleNotFoundError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options);
    this.name = 'BundleNotFoundError';
  }
}

/** A file that cannot be read or parsed (bad YAML, unknown suffix, a directory without bundle.md/bundle.yaml). */
export class BundleLoadError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options);
    this.name = 'BundleLoadError';
  }
}

/** A bundle whose content has the wrong shape (`tools[2]` is not a mapping, ...). */
export class BundleValidationError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options);
    this.name = 'BundleValidationError';
  }
}

/** An include that cannot be resolved or fetched, a cycle, an unknown namespace. */
export class BundleDependencyError extends BundleError {
  constructor(message: string, options?: BundleErrorOptions) {
    super(message, options);
    this.name = 'BundleDependencyError';
  }
}

/** `a -> b -> c`, for messages. */
export function describeChain(chain: readonly string[]): string {
  return chain.join(' -> ');
}
