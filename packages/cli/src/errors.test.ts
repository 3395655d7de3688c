import { AmplifierError, CancelledError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { CLI_ERRORS, CliError, describeError, EXIT_CANCELLED, EXIT_ERROR, EXIT_USAGE } from './errors.js';

describe('CliError is declared in core’s error factory', () => {
  it('its code follows the exit code; it stays a CliError printed as its message, without a stack', () => {
    const cases: [CliError, string, number][] = [
      [new CliError('Give --plan or --bundle, not both.', EXIT_USAGE), 'CLI_USAGE', EXIT_USAGE],
      [new CliError('Stopped: no decision on the folder.', EXIT_CANCELLED), 'CLI_CANCELLED', EXIT_CANCELLED],
      [new CliError('failed'), 'CLI_FAILED', EXIT_ERROR],
      [new CliError('odd exit', 3), 'CLI_FAILED', 3],
    ];
    for (const [error, code, exitCode] of cases) {
      expect(error).toBeInstanceOf(AmplifierError);
      expect(error).toMatchObject({ name: 'CliError', code, exitCode });
      expect(CLI_ERRORS.is(error, code as keyof typeof CLI_ERRORS.codes)).toBe(true);
      expect(describeError(error, true)).toEqual({ message: error.message, exitCode });
      expect(JSON.parse(JSON.stringify(error))).toEqual({ code, name: 'CliError', exitCode });
    }
  });

  it('kernel errors keep their handling: a plain code prints its message; others are the message or the stack', () => {
    const cancelled = new CancelledError();
    expect(describeError(cancelled, false)).toEqual({ message: 'Operation cancelled', exitCode: EXIT_ERROR });
    expect(describeError(new AmplifierError('MOUNT_FAILED', 'no orchestrator'), false)).toEqual({
      message: 'no orchestrator',
      exitCode: EXIT_ERROR,
    });
  });
});
