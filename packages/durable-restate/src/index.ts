/**
 * @amplifier/durable-restate: Amplifier sessions as Restate virtual objects,
 * every provider call and tool call a journaled step, so a turn survives a
 * crashed worker and resumes on another one.
 */

export type { InvocationStatus } from './admin.js';
export { cancelInvocation, invocationStatus, JOURNAL_MISMATCH, registerDeployment } from './admin.js';
export type { DurableErrorCode } from './durable-error.js';
export { DURABLE_ERRORS, DurableError } from './durable-error.js';
export { freePort } from './free-port.js';
export { createRequestIdentity, type RequestIdentity } from './identity.js';
export type { JournaledError, StepObserver, StepOutcome } from './journaled-step.js';
export { journaledError, journaledStepRunner, rebuiltError } from './journaled-step.js';
export type { LocalRestate, LocalRestateOptions } from './local-server.js';
export {
  findRestateServerBinary,
  missingServerMessage,
  SERVER_BIN_ENV,
  startLocalRestate,
} from './local-server.js';
export { polyfilledWithResolvers } from './promise-polyfill.js';
export { type RestateRequestInit, restateFetch, socketPathOf, unixSocketUrl } from './restate-http.js';
export type {
  SessionFactory,
  SessionInit,
  SessionObject,
  SessionObjectHandlers,
  SessionObjectOptions,
  TurnRequest,
  TurnResult,
} from './session-object.js';
export { DEFAULT_OBJECT_NAME, sessionObject, TRANSCRIPT_KEY } from './session-object.js';
export type { SentTurn, TurnClientOptions } from './turn-client.js';
export { TurnClient, TurnError } from './turn-client.js';
export type { Worker, WorkerOptions } from './worker.js';
export { startWorker } from './worker.js';
