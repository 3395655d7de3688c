/**
 * The stdio transport: newline-delimited JSON-RPC on
 * stdin and stdout, bounded. The SDK's own transport buffers a line whole and,
 * past 10 MB, closes itself (the server then never answers again, and says
 * nothing); a line that is not JSON-RPC gets no answer at all. Here:
 *
 * - a line over `maxLineBytes` is discarded as it arrives (never buffered
 *   whole), answered with a JSON-RPC error (-32600, id null) when it ends, and
 *   logged; the next line is served as usual;
 * - a line that is not JSON is answered with -32700 (id null), JSON that is
 *   not a JSON-RPC message with -32600 (its id when it has a usable one);
 *   the first lines of each kind are logged, then a note that the rest are not;
 * - a last line without a newline at the end of stdin is still served, and
 *   `settled()` lets the caller wait (bounded) for its answer before stopping.
 */
import type { Readable, Writable } from 'node:stream';
import { terminalSafe } from '@amplifier/process/terminal';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** The default largest request line: 4 MiB. */
export const DEFAULT_MAX_LINE_BYTES: number = 4 * 1024 * 1024;

/** How many malformed lines are logged one by one before the log goes quiet about them. */
const LOGGED_BAD_LINES = 10;

const NEWLINE = 0x0a;

/** A JSON-RPC error code of the spec. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** How a `BoundedStdioTransport` reads, writes and logs. */
export interface BoundedStdioOptions {
  /** The largest line accepted, in bytes (without its newline). Default `DEFAULT_MAX_LINE_BYTES`. */
  maxLineBytes?: number | undefined;
  /**
   * One line for the operator (stderr): an oversized or malformed line. The
   * text is terminal-safe (what the client sent is stripped of escapes and controls).
   */
  log?: ((message: string) => void) | undefined;
  /** Who logs, at the start of each log line (default `mcp server`). */
  name?: string | undefined;
  /** How the operator raises the limit, in the log line (default `maxLineBytes`; the CLI: `--max-line-bytes`). */
  limitHint?: string | undefined;
  /** Default `process.stdin`. */
  input?: Readable | undefined;
  /** Default `process.stdout`. */
  output?: Writable | undefined;
}

type Id = string | number;

/** A JSON-RPC transport over a pair of streams whose lines are bounded. */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The largest line accepted, in bytes. */
  readonly maxLineBytes: number;
  readonly #name: string;
  readonly #limitHint: string;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #log: (message: string) => void;
  /** The parts of the current line (none while discarding). */
  #parts: Buffer[] = [];
  /** Bytes of the current line so far, discarded ones included. */
  #size = 0;
  #discarding = false;
  #badLines = 0;
  #started = false;
  #closed = false;
  /** Requests of the last, unterminated line, not answered yet. */
  readonly #final = new Set<Id>();
  #finalAnswered: (() => void) | undefined;

  /** A transport over `options.input`/`options.output` (stdin and stdout by default). */
  constructor(options: BoundedStdioOptions = {}) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isSafeInteger(this.maxLineBytes) || this.maxLineBytes < 1) {
      throw new RangeError(
        `maxLineBytes must be a positive integer (bytes); found ${String(options.maxLineBytes)}`,
      );
    }
    this.#name = options.name ?? 'mcp server';
    this.#limitHint = options.limitHint ?? 'maxLineBytes';
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    const log = options.log ?? (() => {});
    this.#log = (message) => log(terminalSafe(message));
  }

  /** Start reading (the SDK calls it on `connect`). */
  async start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioTransport already started');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('error', this.#onError);
  }

  readonly #onData = (chunk: Buffer | string): void => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const end = rest.indexOf(NEWLINE);
      if (end === -1) {
        this.#take(rest);
        return;
      }
      this.#take(rest.subarray(0, end));
      this.#endLine();
      rest = rest.subarray(end + 1);
    }
  };

  readonly #onEnd = (): void => {
    // A last line without its newline is still a line.
    if (this.#size > 0 || this.#discarding) this.#endLine(true);
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  /** Add bytes to the current line, or count them while it is being discarded. */
  #take(part: Buffer): void {
    if (part.length === 0) return;
    this.#size += part.length;
    if (this.#discarding) return;
    if (this.#size > this.maxLineBytes) {
      this.#discarding = true;
      this.#parts = [];
      return;
    }
    this.#parts.push(part);
  }

  #endLine(final = false): void {
    const size = this.#size;
    const discarded = this.#discarding;
    const parts = this.#parts;
    this.#parts = [];
    this.#size = 0;
    this.#discarding = false;
    if (discarded) {
      this.#log(
        `${this.#name}: a request line of ${size} bytes is over the limit of ${this.maxLineBytes} bytes (${this.#limitHint}); it was discarded and answered with a JSON-RPC error (-32600)`,
      );
      this.#reject(
        INVALID_REQUEST,
        `Request too large: the line has ${size} bytes, over the limit of ${this.maxLineBytes}; it was discarded. Send smaller requests (the server's operator can raise ${this.#limitHint}).`,
        null,
      );
      return;
    }
    const line = Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
    if (line.trim() === '') return;
    this.#handle(line, final);
  }

  #handle(line: string, final: boolean): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      this.#bad(`a line that is not JSON (${(error as Error).message})`);
      this.#reject(PARSE_ERROR, `Parse error: the line is not JSON: ${(error as Error).message}`, null);
      return;
    }
    const checked = JSONRPCMessageSchema.safeParse(parsed);
    if (!checked.success) {
      const id = usableId(parsed);
      this.#bad('JSON that is not a JSON-RPC 2.0 message');
      this.#reject(
        INVALID_REQUEST,
        'Invalid Request: expected one JSON-RPC 2.0 message (an object with jsonrpc "2.0" and a method, or a response); batches are not supported',
        id,
      );
      return;
    }
    const message = checked.data;
    if (final && 'method' in message && 'id' in message) this.#final.add(message.id);
    this.onmessage?.(message);
  }

  #bad(what: string): void {
    this.#badLines++;
    if (this.#badLines <= LOGGED_BAD_LINES)
      this.#log(`${this.#name}: answered ${what} with a JSON-RPC error; the server goes on`);
    if (this.#badLines === LOGGED_BAD_LINES)
      this.#log(
        `${this.#name}: ${LOGGED_BAD_LINES} malformed lines; the next ones are answered but not logged`,
      );
  }

  #reject(code: number, message: string, id: Id | null): void {
    // The spec's error response: id null when the request's id could not be read.
    this.#write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`).catch(() => {});
  }

  #write(text: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.#output.write(text)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  /** Write one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    await this.#write(`${JSON.stringify(message)}\n`);
    const id = 'id' in message ? message.id : undefined;
    if (('result' in message || 'error' in message) && id !== undefined && this.#final.delete(id)) {
      if (this.#final.size === 0) this.#finalAnswered?.();
    }
  }

  /**
   * Resolves once the requests of a last line without a newline are answered,
   * or after `timeoutMs` (at once when there were none).
   */
  settled(timeoutMs: number): Promise<void> {
    if (this.#final.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.#finalAnswered = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Stop reading (stdin is paused when nothing else reads it); idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.off('error', this.#onError);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#parts = [];
    this.onclose?.();
  }
}

/** The id of a message that is not valid JSON-RPC, when it has a usable one (a string or an integer). */
function usableId(value: unknown): Id | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = Object.hasOwn(value, 'id') ? (value as { id?: unknown }).id : undefined;
  if (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) return id;
  return null;
}
