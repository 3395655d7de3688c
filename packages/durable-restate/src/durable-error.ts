/** The errors of this package: a `code` to match on and a message that says what to do. */
export type DurableErrorCode =
  | 'RESTATE_SERVER_MISSING'
  | 'RESTATE_SERVER_FAILED'
  | 'RESTATE_ADMIN_UNREACHABLE'
  | 'RESTATE_REGISTRATION_FAILED'
  | 'RESTATE_CANCEL_FAILED'
  | 'TURN_FAILED';

export class DurableError extends Error {
  readonly code: DurableErrorCode;
  constructor(code: DurableErrorCode, message: string) {
    super(message);
    this.name = 'DurableError';
    this.code = code;
  }
}
