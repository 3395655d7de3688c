/**
 * The machinery behind the conformance suites: mount a module into a fresh test
 * coordinator, record what the kernel logged, run cleanups, and turn a list of
 * named checks into pass/fail outcomes. Free of any test runner, so the checks
 * can be run (and tested) directly.
 */
import type { Coordinator, Logger, MountFunction } from '@amplifier/core';
import { errorMessage, isFatalError } from '@amplifier/core';
import { createTestCoordinator, type TestCoordinator } from './mocks.js';

/** A module as its own tests see it: its exports plus the config and setup to mount it with. */
export interface ModuleUnderTest {
  mount: MountFunction;
  onSessionReady?: (coordinator: Coordinator) => unknown;
  /** Passed to `mount` (a shallow copy per mount). Default `{}`. */
  config?: Record<string, unknown>;
  /** Runs on the fresh coordinator before `mount` (register capabilities, mount dependencies...). */
  setup?: (coordinator: TestCoordinator) => void | Promise<void>;
}

/** A failed conformance check. The message says what was expected and what was found. */
export class ConformanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceError';
  }
}

/** Fail the current check. */
export function fail(message: string): never {
  throw new ConformanceError(message);
}

/** Fail the current check unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceError(message);
}

/** One line the kernel logged while a module was under test. */
export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/**
 * A Logger that keeps every record. The kernel reports a throwing hook
 * handler, an invalid HookResult or a failing cleanup only through its logger,
 * so this is how the checks see them.
 */
export class RecordingLogger implements Logger {
  readonly records: LogRecord[] = [];
  debug(message: string): void {
    this.records.push({ level: 'debug', message });
  }
  info(message: string): void {
    this.records.push({ level: 'info', message });
  }
  warn(message: string): void {
    this.records.push({ level: 'warn', message });
  }
  error(message: string): void {
    this.records.push({ level: 'error', message });
  }
  /** Warnings and errors logged since record number `from`. */
  problemsSince(from = 0): string[] {
    return this.records
      .slice(from)
      .filter((r) => r.level === 'warn' || r.level === 'error')
      .map((r) => r.message);
  }
}

/** A module mounted into its own test coordinator. */
export interface MountedModule {
  coordinator: TestCoordinator;
  logger: RecordingLogger;
  /** What `mount` returned. */
  returned: unknown;
}

/** Human-readable form of a value for failure messages (short, never throws). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `a function (${value.name || 'anonymous'})`;
  if (typeof value === 'string')
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 200 ? `${text.slice(0, 200)}...` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Create a bare test coordinator (with a recording logger), run `setup`, call
 * `mount(coordinator, {...config})` and register what it returned as a cleanup
 * (as a session does), then run `onSessionReady`. Throws ConformanceError with
 * the module's error when mounting fails.
 */
export async function mountForTest(module: ModuleUnderTest): Promise<MountedModule> {
  const logger = new RecordingLogger();
  const coordinator = createTestCoordinator({ bare: true, logger });
  if (module.setup) await module.setup(coordinator);
  let returned: unknown;
  try {
    returned = await module.mount(coordinator, { ...(module.config ?? {}) });
  } catch (error) {
    await coordinator.cleanup().catch(() => {});
    fail(`mount(coordinator, config) threw: ${errorMessage(error)}`);
  }
  coordinator.registerCleanup(returned);
  if (module.onSessionReady) {
    try {
      await module.onSessionReady(coordinator);
    } catch (error) {
      await coordinator.cleanup().catch(() => {});
      fail(`onSessionReady(coordinator) threw: ${errorMessage(error)}`);
    }
  }
  return { coordinator, logger, returned };
}

/**
 * Run every cleanup of a mounted module (the one `mount` returned included),
 * LIFO. Returns the problems: cleanups that threw (the coordinator logs them)
 * and a fatal error it re-threw. Never throws.
 */
export async function cleanupForTest(mounted: MountedModule): Promise<string[]> {
  const from = mounted.logger.records.length;
  const problems: string[] = [];
  try {
    await mounted.coordinator.cleanup();
  } catch (error) {
    problems.push(
      `cleanup threw ${isFatalError(error) ? 'a fatal error' : 'an error'}: ${errorMessage(error)}`,
    );
  }
  for (const message of mounted.logger.problemsSince(from)) {
    if (message.startsWith('cleanup failed')) problems.push(message);
  }
  return problems;
}

/** Mount, run `body`, and always clean up (cleanup problems are ignored here). */
export async function withMounted<T>(
  module: ModuleUnderTest,
  body: (mounted: MountedModule) => Promise<T>,
): Promise<T> {
  const mounted = await mountForTest(module);
  try {
    return await body(mounted);
  } finally {
    await cleanupForTest(mounted);
  }
}

/** Resolve with `value`, or fail the check when it has not settled after `ms` (a safety net for hangs). */
export async function settle<T>(value: T | Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConformanceError(`${what} did not settle within ${ms} ms`)), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([Promise.resolve(value), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Call `fn` and fail the check (naming `what`) if it throws or rejects. */
export async function mustNotThrow<T>(what: string, fn: () => T | Promise<T>): Promise<T> {
  let pending: T | Promise<T>;
  try {
    pending = fn();
  } catch (error) {
    fail(`${what} threw: ${errorMessage(error)}`);
  }
  try {
    return await settle(pending, what);
  } catch (error) {
    if (error instanceof ConformanceError) throw error;
    fail(`${what} rejected: ${errorMessage(error)}`);
  }
}

/** One named, self-contained check of a conformance suite. Throws ConformanceError on failure. */
export interface ConformanceCheck<M extends ModuleUnderTest = ModuleUnderTest> {
  readonly name: string;
  run(module: M): Promise<void>;
}

export interface CheckOutcome {
  name: string;
  passed: boolean;
  /** Empty when passed; the failure otherwise. */
  message: string;
}

/** Run checks one after another and report each (a check's own bug counts as its failure). */
export async function runConformanceChecks<M extends ModuleUnderTest>(
  checks: readonly ConformanceCheck<M>[],
  module: M,
): Promise<CheckOutcome[]> {
  const outcomes: CheckOutcome[] = [];
  for (const check of checks) {
    try {
      await check.run(module);
      outcomes.push({ name: check.name, passed: true, message: '' });
    } catch (error) {
      outcomes.push({ name: check.name, passed: false, message: errorMessage(error) });
    }
  }
  return outcomes;
}

/**
 * The check every suite shares: `mount` returns nothing or a cleanup function,
 * and every cleanup (returned and registered) runs without an error.
 */
export function cleanupCheck<M extends ModuleUnderTest>(): ConformanceCheck<M> {
  return {
    name: 'mount returns nothing or a cleanup, and cleanup runs without errors',
    async run(module) {
      const mounted = await mountForTest(module);
      const { returned } = mounted;
      const problems = await cleanupForTest(mounted);
      ensure(
        returned === undefined || returned === null || typeof returned === 'function',
        `mount must return nothing or a cleanup function, returned ${describeValue(returned)}`,
      );
      ensure(problems.length === 0, `cleanup failed:\n  ${problems.join('\n  ')}`);
    },
  };
}
