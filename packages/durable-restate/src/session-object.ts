/**
 * Sessions as Restate virtual objects keyed by session id. Restate runs one
 * exclusive handler per key at a time, so two turns sent at once to one
 * session run one after the other, with no lock of ours.
 *
 * A turn (the `turn` handler) builds the session with the app's factory,
 * installs the journaling `session.step` runner, restores the transcript
 * from the object's state, runs the prompt, and stores the transcript back.
 * On a replay (a crashed worker, a restarted server) the same code runs again:
 * the state read, every completed provider and tool step answer from the
 * journal, so the loop takes the same path and rebuilds the same context;
 * hook events are suppressed until the replay reaches the first step that
 * was not journaled (see README, "Replayed events are suppressed").
 */
import {
  AmplifierError,
  type AmplifierSession,
  errorMessage,
  type Logger,
  type Message,
  STEP_CAPABILITY,
} from '@amplifier/core';
import type {
  HooksProvider,
  ObjectContext,
  ObjectSharedContext,
  VirtualObjectDefinition,
} from '@restatedev/restate-sdk';
import { JOURNAL_MISMATCH } from './admin.js';
import { ATTEMPT_HEADER, Attempt, attemptsByRequest, trackAttempt } from './attempts.js';
import { journaledStepRunner, type StepObserver } from './journaled-step.js';
import { restate } from './restate.js';

/** What the app's factory is told when a turn needs a session. */
export interface SessionInit {
  /** The virtual object's key. */
  sessionId: string;
  /** True when the session already has a transcript (pass it as `isResumed`: `session:resume`, not `session:start`). */
  isResumed: boolean;
}

/** Builds the session a turn runs in, from the app's mount plan (a new one for every attempt). */
export type SessionFactory = (init: SessionInit) => AmplifierSession | Promise<AmplifierSession>;

export interface SessionObjectOptions {
  /** The app's session factory (mount plan, loader, tools). Called once per turn attempt. */
  createSession: SessionFactory;
  /** The virtual object's name in Restate (default `amplifier-session`). */
  name?: string;
  /** Told about every step (ran, or answered by the journal): for metrics and tests. */
  onStep?: StepObserver;
  /** Where a deterministic-replay violation is reported (default: console). */
  logger?: Logger;
}

/** The body of a `turn` call: `{ "prompt": "..." }` (a bare JSON string works too). */
export interface TurnRequest {
  prompt: string;
}

/** What a turn answers. */
export interface TurnResult {
  session_id: string;
  /** The orchestrator's answer. */
  answer: string;
  /** Messages in the transcript after the turn. */
  message_count: number;
}

/** The default virtual object name. */
export const DEFAULT_OBJECT_NAME = 'amplifier-session';

/** Object state key holding the transcript (`Message[]`). */
export const TRANSCRIPT_KEY = 'transcript';

/**
 * The Restate virtual object serving sessions: `turn` (exclusive: one at a
 * time per session), `transcript` (shared: read while a turn runs).
 */
export function sessionObject(options: SessionObjectOptions): SessionObject {
  const name = options.name ?? DEFAULT_OBJECT_NAME;
  return restate.object({
    name,
    handlers: {
      turn: (ctx: ObjectContext, input: unknown): Promise<TurnResult> => runTurn(ctx, input, options),
      transcript: restate.handlers.object.shared(
        async (ctx: ObjectSharedContext): Promise<Message[]> =>
          (await ctx.get<Message[]>(TRANSCRIPT_KEY)) ?? [],
      ),
    },
    options: {
      // Restate's cancel reaches the turn as an abort, not as a failed journal await.
      explicitCancellation: true,
      hooks: [watchAttempts(options.logger ?? console)],
    },
  });
}

/** The handlers of the session object. */
export interface SessionObjectHandlers {
  turn: (ctx: ObjectContext, input: unknown) => Promise<TurnResult>;
  transcript: (ctx: ObjectSharedContext) => Promise<Message[]>;
}

/** The virtual object `sessionObject` returns. */
export type SessionObject = VirtualObjectDefinition<string, SessionObjectHandlers>;

function promptOf(input: unknown): string {
  if (typeof input === 'string' && input.length > 0) return input;
  if (input !== null && typeof input === 'object' && typeof (input as TurnRequest).prompt === 'string') {
    const prompt = (input as TurnRequest).prompt;
    if (prompt.length > 0) return prompt;
  }
  throw new restate.TerminalError(
    'A turn needs a prompt: send the JSON body {"prompt": "..."} (content-type: application/json)',
    { errorCode: 400 },
  );
}

async function runTurn(
  ctx: ObjectContext,
  input: unknown,
  options: SessionObjectOptions,
): Promise<TurnResult> {
  const prompt = promptOf(input);
  const internal = ctx as unknown as restate.internal.ContextInternal;
  const stored = (await ctx.get<Message[]>(TRANSCRIPT_KEY)) ?? [];
  const sessionId = ctx.key;

  // Building the session is not part of the turn: a worker that cannot (a module
  // missing here) fails the attempt and Restate retries, maybe on another worker.
  const session = await options.createSession({ sessionId, isResumed: stored.length > 0 });
  const hooks = session.coordinator.hooks;
  const attempt = attemptsByRequest.get(ctx.request());
  // Nothing is emitted while the journal replays, nor once the attempt is abandoned.
  const unsuppress = hooks.suppressWhile(() => attempt?.ended === true || !internal.isProcessing());
  const controller = new AbortController();
  void attempt?.whenEnded.then(() => {
    if (!controller.signal.aborted)
      controller.abort(new AmplifierError('CANCELLED', 'the invocation attempt ended'));
  });
  try {
    await session.initialize();
    const context = session.coordinator.get('context');
    if (context === undefined) {
      throw new restate.TerminalError(`session '${sessionId}': the mount plan mounts no context manager`);
    }
    if (stored.length > 0) await context.setMessages(stored);
    // Restate's cancel aborts the turn, which reaches every running tool's signal.
    const runner = journaledStepRunner(ctx, {
      ...(options.onStep === undefined ? {} : { observe: options.onStep }),
      ...(attempt === undefined ? {} : { ended: attempt.whenEnded }),
      onCancel: () =>
        controller.abort(new AmplifierError('CANCELLED', 'the turn was cancelled through Restate')),
    });
    session.coordinator.registerCapability(STEP_CAPABILITY, runner);
    let answer: string;
    try {
      answer = await session.execute(prompt, { signal: controller.signal });
    } catch (error) {
      throw turnError(sessionId, error);
    }
    if (controller.signal.aborted) {
      throw new restate.TerminalError(`session '${sessionId}': the turn was cancelled`, { errorCode: 409 });
    }
    const messages = await context.getMessages();
    ctx.set(TRANSCRIPT_KEY, messages);
    return { session_id: sessionId, answer, message_count: messages.length };
  } finally {
    unsuppress();
    await session.cleanup().catch(() => {});
  }
}

/**
 * Watch each attempt of the handler. When it ends without the handler having
 * finished (Restate lost the connection, the server restarted), the turn is
 * abandoned: its events are suppressed from then on, its waiting steps fail,
 * its tools are aborted, and the session is cleaned up (the next attempt
 * replays the turn). And say it clearly when an attempt ends because its
 * replay took another path than the journal (Restate's error 570): the SDK
 * ends that attempt without the handler seeing the error.
 */
function watchAttempts(logger: Logger): HooksProvider {
  return ({ request }) => {
    const attempt = new Attempt();
    attemptsByRequest.set(request, attempt);
    const id = request.attemptHeaders.get(ATTEMPT_HEADER);
    trackAttempt(typeof id === 'string' ? id : undefined, attempt);
    return {
      interceptor: {
        handler: async (next) => {
          try {
            await next();
          } catch (error) {
            if (error instanceof restate.RestateError && error.code === JOURNAL_MISMATCH) {
              const difference = error.message.split('\n').find((line) => line.includes('name:'));
              logger.error(
                `session '${request.target.key ?? '?'}': deterministic replay violation in ${request.id}: the replay took another path than the journal (${difference?.trim() ?? error.message}). Something outside the journal (a random value, the clock, the mounted tools, the config) changed the turn; Restate retries until a worker agrees with the journal.`,
              );
            }
            throw error;
          } finally {
            attempt.end(new restate.RestateError('the invocation attempt ended'));
          }
        },
      },
    };
  };
}

/**
 * A turn's failure as Restate should see it: the attempt's own end (a
 * suspension, a lost connection) as it is, so Restate retries; anything the
 * turn itself threw as terminal, so the caller gets it once instead of a
 * retry loop (the steps before it are journaled: a retry would fail the same).
 */
function turnError(sessionId: string, error: unknown): unknown {
  if (error instanceof restate.RestateError && !(error instanceof restate.TerminalError)) return error;
  if (restate.internal.isSuspendedError(error)) return error;
  if (error instanceof restate.TerminalError) return error;
  return new restate.TerminalError(`session '${sessionId}': the turn failed: ${errorMessage(error)}`, {
    errorCode: 500,
  });
}
