/**
 * Packages a one-shot `amplifier run` does not use, loaded on first use
 * (start-up time): hooks-logging's redaction and JSONL reader (`--redact`,
 * resume, `session show`) and the spinner (stderr is a terminal). Loaded
 * synchronously with `require` of an ES module (Node 20.19+), so the callers
 * stay synchronous; Node caches the module, so a later `import` of the same
 * package gets the same instance.
 */
import { createRequire } from 'node:module';

type HooksLogging = typeof import('@amplifier/hooks-logging');
type YoctoSpinner = typeof import('yocto-spinner');

const requireModule = createRequire(import.meta.url);

/** `@amplifier/hooks-logging`. */
export function hooksLogging(): HooksLogging {
  return requireModule('@amplifier/hooks-logging') as HooksLogging;
}

/** yocto-spinner's factory. */
export function yoctoSpinner(): YoctoSpinner['default'] {
  return (requireModule('yocto-spinner') as YoctoSpinner).default;
}
