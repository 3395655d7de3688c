/**
 * The command actions' wrapper: an action's return value is the process's
 * exit code, and an error is printed (without a stack unless --verbose).
 */
import { Command } from 'commander';
import { Display } from '../display.js';
import { describeError, EXIT_OK } from '../errors.js';
import type { Common } from './options.js';

let exitCode = EXIT_OK;

/** The exit code the last action returned (or its error's). */
export function actionExitCode(): number {
  return exitCode;
}

/** Wrap a command action: its return value is the exit code; errors are printed without a stack. */
export function action<A extends unknown[]>(
  handler: (...args: A) => Promise<number> | number,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const options = args.find(
      (a): a is Common => typeof a === 'object' && a !== null && !(a instanceof Command),
    );
    try {
      exitCode = await handler(...args);
    } catch (error) {
      const display = new Display({ verbose: options?.verbose ?? false });
      const { message, exitCode: code } = describeError(error, options?.verbose ?? false);
      display.error(message);
      exitCode = code;
    }
  };
}

/** The display of a command that prints lines and problems (no session). */
export function display(options: Common): Display {
  return new Display({ verbose: options.verbose ?? false });
}
