/**
 * A chat endpoint for the AI SDK's `useChat` (`DefaultChatTransport`): a web
 * `Request` in, a streamed `Response` out, so it mounts in Hono, Next.js route
 * handlers and anything else that speaks fetch; `toNodeListener` adapts it to
 * Node's `http`. POST runs a turn of the chat's session and streams it; GET
 * `…/<chatId>/stream` resumes the chat's running (or just finished) turn.
 * It checks no credential: put it behind your app's auth, or `createGate`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AmplifierSession } from '@amplifier/core';
import {
  lastEventId,
  StreamBuffers,
  turnEventFrames,
  UI_MESSAGE_STREAM_HEADERS,
  uiMessageFrames,
} from './sse.js';
import { streamTurn } from './turn-stream.js';
import { toUIMessageChunks, type UIMessageStreamOptions } from './ui-message-stream.js';

/** Options of `createChatHandler`. */
export interface ChatHandlerOptions {
  /** The session of a chat: create it on first use, keep it, return it again (the session keeps the context). */
  session(chatId: string, request: Request): AmplifierSession | Promise<AmplifierSession>;
  /**
   * Keep each turn's frames so a dropped client resumes (GET `…/<chatId>/stream`,
   * `Last-Event-ID`): default a new `StreamBuffers`; `false` cancels a turn when
   * its client disconnects instead.
   */
  resumable?: StreamBuffers | false;
  /** `ui` (default): the AI SDK's UI message stream; `events`: each `TurnEvent` as plain SSE. */
  format?: 'ui' | 'events';
  /** The largest request body read, in bytes (default 1 MiB); a larger one is refused with 413. */
  maxBodyBytes?: number;
  /**
   * Origins besides the request's own whose pages may call the handler
   * (`https://app.example`). A request with any other `Origin` is refused with
   * 403 before anything runs: a page elsewhere cannot start a turn with the
   * user's cookies (a `text/plain` POST needs no CORS preflight).
   */
  allowedOrigins?: readonly string[];
  /** The text a client sees for a failed turn (default: the error's class, never its message). */
  errorText?: UIMessageStreamOptions['errorText'];
}

const CHAT_ID = /^[\w.:-]{1,200}$/;
const DEFAULT_MAX_BODY = 1024 * 1024;

/** A path segment decoded, or undefined when its escapes are malformed (`%E0%A4%A`). */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** A JSON error response: `{ error: { code, message } }`. */
function refuse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** The prompt of a chat request: the text parts of the last user message. */
function promptOf(body: unknown): { chatId: string; prompt: string } | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'the body must be a JSON object';
  const { id, messages } = body as { id?: unknown; messages?: unknown };
  if (typeof id !== 'string' || !CHAT_ID.test(id) || id === '.' || id === '..') {
    return '`id` must be the chat id: 1-200 letters, digits, `_`, `.`, `:` or `-`';
  }
  if (!Array.isArray(messages)) return '`messages` must be an array of UI messages';
  const last = [...messages].reverse().find((m) => (m as { role?: unknown } | null)?.role === 'user') as
    | { parts?: unknown }
    | undefined;
  if (last === undefined) return '`messages` holds no user message';
  if (!Array.isArray(last.parts)) return "the last user message's `parts` must be an array";
  const prompt = last.parts
    .filter((p): p is { type: 'text'; text: string } => p?.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
  if (prompt.trim() === '') return 'the last user message has no text part';
  return { chatId: id, prompt };
}

/** Read at most `max` bytes of the body as text; undefined when it is larger. */
async function readBody(request: Request, max: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > max) return undefined;
  if (request.body === null) return '';
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function frameResponse(frames: AsyncIterable<string>, format: 'ui' | 'events'): Response {
  const encoder = new TextEncoder();
  const iterator = frames[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  const { 'x-vercel-ai-ui-message-stream': protocol, ...sse } = UI_MESSAGE_STREAM_HEADERS;
  return new Response(body, {
    status: 200,
    headers: format === 'ui' ? { ...sse, 'x-vercel-ai-ui-message-stream': protocol! } : sse,
  });
}

/** A fetch-style handler (`(request) => Promise<Response>`) for a chat UI: see the module comment. */
export function createChatHandler(options: ChatHandlerOptions): (request: Request) => Promise<Response> {
  const buffers = options.resumable === false ? undefined : (options.resumable ?? new StreamBuffers());
  const format = options.format ?? 'ui';
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const origins = new Set(options.allowedOrigins ?? []);
  /** A browser's request from a page of another origin than the handler's and not allowed. */
  const foreign = (request: Request): boolean => {
    const origin = request.headers.get('origin');
    return origin !== null && origin !== new URL(request.url).origin && !origins.has(origin);
  };

  const resume = (request: Request, chatId: string): Response => {
    const frames = buffers?.read(chatId, lastEventId(request.headers), request.signal);
    return frames === undefined ? new Response(null, { status: 204 }) : frameResponse(frames, format);
  };

  const post = async (request: Request): Promise<Response> => {
    const text = await readBody(request, maxBody);
    if (text === undefined)
      return refuse(413, 'BODY_TOO_LARGE', `The request body is over ${maxBody} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(
        400,
        'INVALID_JSON',
        'The request body is not JSON: send { id, messages } as useChat does.',
      );
    }
    const parsed = promptOf(body);
    if (typeof parsed === 'string')
      return refuse(400, 'INVALID_CHAT_REQUEST', `Invalid chat request: ${parsed}.`);
    const session = await options.session(parsed.chatId, request);
    if (session.isRunning || buffers?.running(parsed.chatId)) {
      return refuse(
        409,
        'TURN_RUNNING',
        'A turn of this chat is running: resume it (GET …/<chatId>/stream) or wait.',
      );
    }
    // A resumable turn runs to its end whatever the client does; otherwise the client's leaving cancels it.
    const signal = buffers === undefined ? request.signal : undefined;
    const events = streamTurn(session, parsed.prompt, { progress: true, ...(signal && { signal }) });
    const frames =
      format === 'ui'
        ? uiMessageFrames(
            toUIMessageChunks(events, { ...(options.errorText && { errorText: options.errorText }) }),
          )
        : turnEventFrames(events);
    if (buffers === undefined) return frameResponse(frames, format);
    void buffers.start(parsed.chatId, frames);
    return frameResponse(buffers.read(parsed.chatId, undefined, request.signal) ?? frames, format);
  };

  return async (request) => {
    if (foreign(request)) {
      return refuse(
        403,
        'FOREIGN_ORIGIN',
        'Requests from this origin are refused: list it in allowedOrigins.',
      );
    }
    const path = new URL(request.url).pathname;
    if (request.method === 'GET') {
      const match = /\/([^/]+)\/stream$/.exec(path);
      const chatId = match === null ? undefined : decoded(match[1]!);
      if (chatId === undefined || !CHAT_ID.test(chatId) || chatId === '.' || chatId === '..') {
        return refuse(404, 'NOT_FOUND', 'GET …/<chatId>/stream resumes a chat; POST runs a turn.');
      }
      return resume(request, chatId);
    }
    if (request.method === 'POST') return post(request);
    return refuse(405, 'METHOD_NOT_ALLOWED', 'POST runs a turn; GET …/<chatId>/stream resumes one.');
  };
}

/**
 * A Node `http` request listener for a fetch-style handler: the request as a
 * web `Request` (its `signal` aborts when the client goes away), the response
 * streamed chunk by chunk, uncompressed.
 */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const url = `http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`;
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) headers.set(name, value.join(', '));
    }
    const request = new Request(url, {
      method: req.method ?? 'GET',
      headers,
      signal: abort.signal,
      ...(hasBody && { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' }),
    } as RequestInit);
    void (async () => {
      try {
        const response = await handler(request);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.flushHeaders();
        if (response.body === null) return void res.end();
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          if (res.destroyed) break;
          if (!res.write(chunk)) {
            await new Promise((resolve) => {
              res.once('drain', resolve);
              res.once('close', resolve);
            });
          }
        }
        res.end();
      } catch {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end();
      }
    })();
  };
}
