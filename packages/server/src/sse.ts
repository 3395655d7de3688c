/**
 * Server-sent events for a turn: the frames (`id:` and `data:` lines), the
 * headers of the AI SDK's UI message stream, and a buffer that keeps a turn's
 * frames while it runs, so a client whose connection dropped reconnects with
 * `Last-Event-ID` (or the AI SDK's `resume`) and misses nothing.
 */
import type { TurnEvent } from './turn-stream.js';
import type { UIMessageChunk } from './ui-message-stream.js';

/** The headers of a UI message stream response (the AI SDK's `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
});

/** One SSE frame: `id: <id>` (when given) and the data on one `data:` line (JSON has no newline). */
export function sseFrame(data: string, id?: number): string {
  return id === undefined ? `data: ${data}\n\n` : `id: ${id}\ndata: ${data}\n\n`;
}

/** The frames of a UI message stream: each chunk as JSON with its index as id, then `[DONE]`. */
export async function* uiMessageFrames(chunks: AsyncIterable<UIMessageChunk>): AsyncGenerator<string> {
  let id = 0;
  for await (const chunk of chunks) yield sseFrame(JSON.stringify(chunk), id++);
  yield sseFrame('[DONE]', id);
}

/** The frames of a turn as plain SSE for `EventSource`: each `TurnEvent` as JSON with its index as id. */
export async function* turnEventFrames(events: AsyncIterable<TurnEvent>): AsyncGenerator<string> {
  let id = 0;
  try {
    for await (const event of events) yield sseFrame(JSON.stringify(event), id++);
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    yield sseFrame(JSON.stringify({ type: 'error', error: { type: name } }), id);
  }
}

interface Buffered {
  frames: string[];
  /** How many frames were dropped from the front (the buffer is bounded). */
  dropped: number;
  done: boolean;
  wake: Set<() => void>;
}

/** Options of `StreamBuffers`. */
export interface StreamBuffersOptions {
  /** Frames kept per stream (default 100,000); older ones are dropped and can no longer be replayed. */
  maxFrames?: number;
  /** How long a finished stream stays readable, in ms (default 60,000). */
  keepMs?: number;
}

/**
 * The frames of running turns, by key (a chat id), in memory. `start` reads a
 * turn's frames to its end whatever the clients do (a turn is not cancelled
 * because a browser tab closed); `read` replays what came after a frame id,
 * then follows the live frames. A finished stream is forgotten `keepMs` later.
 * One process only: behind several processes, route a chat to one of them.
 */
export class StreamBuffers {
  readonly #streams = new Map<string, Buffered>();
  readonly #maxFrames: number;
  readonly #keepMs: number;

  constructor(options: StreamBuffersOptions = {}) {
    this.#maxFrames = Math.max(1, options.maxFrames ?? 100_000);
    this.#keepMs = Math.max(0, options.keepMs ?? 60_000);
  }

  /** Buffer `frames` under `key` (a finished stream of that key is replaced); resolves when they ended. */
  start(key: string, frames: AsyncIterable<string>): Promise<void> {
    const buffered: Buffered = { frames: [], dropped: 0, done: false, wake: new Set() };
    this.#streams.set(key, buffered);
    const wake = (): void => {
      for (const resolve of buffered.wake) resolve();
      buffered.wake.clear();
    };
    return (async () => {
      try {
        for await (const frame of frames) {
          buffered.frames.push(frame);
          if (buffered.frames.length > this.#maxFrames) {
            buffered.frames.shift();
            buffered.dropped++;
          }
          wake();
        }
      } finally {
        buffered.done = true;
        wake();
        const timer = setTimeout(() => {
          if (this.#streams.get(key) === buffered) this.#streams.delete(key);
        }, this.#keepMs);
        timer.unref();
      }
    })();
  }

  /** Whether a stream is buffered under `key` (running, or finished less than `keepMs` ago). */
  has(key: string): boolean {
    return this.#streams.has(key);
  }

  /** Whether the stream under `key` is still running. */
  running(key: string): boolean {
    return this.#streams.get(key)?.done === false;
  }

  /** Forget the stream under `key` now (its readers end after what they have). */
  forget(key: string): void {
    this.#streams.delete(key);
  }

  /**
   * The frames of the stream under `key` after frame id `after` (all of them
   * without), then the live ones until it ends or `signal` aborts. Undefined
   * when nothing is buffered under `key`, or when frames after `after` were
   * already dropped (the client must start over).
   */
  read(key: string, after?: number, signal?: AbortSignal): AsyncIterable<string> | undefined {
    const buffered = this.#streams.get(key);
    if (buffered === undefined) return undefined;
    const first = after === undefined ? 0 : after + 1;
    if (first < buffered.dropped) return undefined;
    return follow(buffered, first, signal);
  }
}

async function* follow(buffered: Buffered, first: number, signal?: AbortSignal): AsyncGenerator<string> {
  let next = first; // the index of the next frame to send, counted from the stream's start
  for (;;) {
    if (signal?.aborted) return;
    const at = next - buffered.dropped;
    if (at < 0) return; // dropped while this reader was behind: end, the client starts over
    if (at < buffered.frames.length) {
      const frame = buffered.frames[at]!;
      next++;
      yield frame;
      continue;
    }
    if (buffered.done) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        buffered.wake.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      buffered.wake.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** The frame id a client asks to resume after (`Last-Event-ID`), or undefined. */
export function lastEventId(headers: Headers): number | undefined {
  const value = headers.get('last-event-id');
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
