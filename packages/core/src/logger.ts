/**
 * The kernel's own diagnostics: the logger used when none is passed, and a
 * silent one. Apps pass their own `Logger` to the session to route them elsewhere.
 */
import type { Logger } from './contracts.js';

const verbose = (): boolean => Boolean(process.env.AMPLIFIER_DEBUG);

/**
 * The logger the kernel uses when none is passed: warnings and errors to stderr
 * with an `[amplifier]` prefix, debug and info only when `AMPLIFIER_DEBUG` is set.
 */
export const defaultLogger: Logger = {
  debug(message, ...details) {
    if (verbose()) console.error(`[amplifier] debug: ${message}`, ...details);
  },
  info(message, ...details) {
    if (verbose()) console.error(`[amplifier] ${message}`, ...details);
  },
  warn(message, ...details) {
    console.warn(`[amplifier] warning: ${message}`, ...details);
  },
  error(message, ...details) {
    console.error(`[amplifier] error: ${message}`, ...details);
  },
};

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
