/** The errors of this package, declared in core's error factory: a `code` to match on and a message that says what to do. */
import {
  AmplifierError,
  type AmplifierErrorOptions,
  type CodesOf,
  defineErrors,
  type ErrorTable,
} from '@amplifier/core';

const rows = {
  RESTATE_SERVER_MISSING: { name: 'DurableError', description: 'no restate-server binary was found' },
  RESTATE_SERVER_FAILED: {
    name: 'DurableError',
    description: 'the local restate-server did not start or exited',
  },
  RESTATE_ADMIN_UNREACHABLE: { name: 'DurableError', description: "Restate's admin API did not answer" },
  RESTATE_REGISTRATION_FAILED: { name: 'DurableError', description: 'Restate refused the deployment' },
  RESTATE_CANCEL_FAILED: { name: 'DurableError', description: 'Restate did not cancel the invocation' },
  TURN_FAILED: { name: 'DurableError', description: 'a turn failed, was cancelled or refused (`TurnError`)' },
} as const;

/** The codes of this package (the thrower writes the message, which names what to do). */
export const DURABLE_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof DURABLE_ERRORS> {}
}

/** A code of this package. */
export type DurableErrorCode = keyof typeof rows;

/** An error of this package: an `AmplifierError` with one of `DURABLE_ERRORS`' codes, named `DurableError`. */
export class DurableError extends AmplifierError {
  declare readonly code: DurableErrorCode;
  constructor(code: DurableErrorCode, message: string, options?: AmplifierErrorOptions) {
    super(code, message, options);
    this.name = 'DurableError';
  }
}
