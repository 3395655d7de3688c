/**
 * Reading a response body with limits that stop reading: decompression as a
 * stream (gzip, deflate, brotli) with a counter on the decoded bytes and on
 * the wire bytes, charset detection (BOM, Content-Type, `<meta charset>`) and
 * streaming decoding that never splits a multi-byte sequence.
 */
import type { Readable } from 'node:stream';
import { pipeline, Transform } from 'node:stream';
import { TextDecoder } from 'node:util';
import zlib from 'node:zlib';

/** How the content of a response is handled. */
export type ContentKind = 'html' | 'json' | 'text' | 'binary';

/** The media type (lower-case, no parameters) and charset parameter of a Content-Type header. */
export function parseContentType(header: string | undefined): { type: string; charset: string | undefined } {
  if (!header) return { type: '', charset: undefined };
  const [type = '', ...params] = header.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param);
    if (match) charset = match[1];
  }
  return { type: type.trim().toLowerCase(), charset };
}

const TEXT_APPLICATION_TYPES = new Set([
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/xml',
  'application/x-sh',
  'application/x-httpd-php',
  'application/sql',
  'application/graphql',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-ndjson',
  'application/csv',
  'application/x-www-form-urlencoded',
]);

/** Classify a media type; `''` (no Content-Type) is decided by sniffing the body. */
export function contentKind(type: string): ContentKind | undefined {
  if (type === '') return undefined;
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type.startsWith('text/') || type.endsWith('+xml') || TEXT_APPLICATION_TYPES.has(type)) return 'text';
  return 'binary';
}

/** True when the bytes look binary (a NUL byte, or many control bytes) rather than text. */
export function looksBinary(bytes: Uint8Array): boolean {
  let control = 0;
  for (const b of bytes) {
    if (b === 0) return true;
    if (b < 7 || (b > 13 && b < 32 && b !== 27)) control++;
  }
  return bytes.length > 0 && control / bytes.length > 0.1;
}

/** How many leading bytes are sniffed for a BOM, `<meta charset>` and binary content. */
const SNIFF_BYTES = 1024;

/** The charset of an HTML document's `<meta charset>` or `<meta http-equiv=Content-Type>` in its head bytes. */
export function metaCharset(head: Uint8Array): string | undefined {
  const text = new TextDecoder('latin1').decode(head);
  const direct = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(text);
  return direct?.[1];
}

/**
 * A TextDecoder for the body: a BOM wins, then the header's charset, then (for
 * HTML) a `<meta>` charset, then UTF-8. Unknown labels fall back to UTF-8 with
 * replacement characters.
 */
export function createDecoder(
  head: Uint8Array,
  headerCharset: string | undefined,
  html: boolean,
): TextDecoder {
  let label = 'utf-8';
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) label = 'utf-8';
  else if (head[0] === 0xfe && head[1] === 0xff) label = 'utf-16be';
  else if (head[0] === 0xff && head[1] === 0xfe) label = 'utf-16le';
  else if (headerCharset) label = headerCharset;
  else if (html) label = metaCharset(head) ?? 'utf-8';
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** A decompressor for each Content-Encoding, in the order they must be undone. */
function decoders(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > 2) throw new Error(`Too many Content-Encoding layers (${codings.join(', ')})`);
  return codings.reverse().map((coding) => {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return zlib.createGunzip();
      case 'deflate':
        return zlib.createInflate();
      case 'br':
        return zlib.createBrotliDecompress();
      default:
        throw new Error(`Unsupported Content-Encoding: ${coding}`);
    }
  });
}

export interface ReadBodyOptions {
  contentEncoding: string | undefined;
  /** Decoded bytes kept at most; reading stops there. */
  maxBytes: number;
  /** Wire (compressed) bytes read at most; reading stops there. */
  maxWireBytes: number;
  /** Stop once the decoded text has at least this many characters. */
  stopAtChars?: number;
  /** Receives each piece of decoded text instead of keeping it (save_to_file). */
  sink?: (text: string) => Promise<void> | void;
  /** Called once with the head bytes; returns the decoder, or throws to refuse the body. */
  decoderFor: (head: Uint8Array) => TextDecoder;
  signal: AbortSignal;
}

export interface ReadBodyResult {
  /** The decoded text (empty when a sink took it). */
  text: string;
  /** Decoded bytes read. */
  bytes: number;
  /** Characters decoded (also when a sink took them). */
  chars: number;
  /** The whole body was read. */
  complete: boolean;
  /** Reading stopped at `maxBytes` / `maxWireBytes`: the body is larger. */
  capped: boolean;
  /** The label of the decoder used. */
  encoding: string;
}

/**
 * Read and decode `body` until it ends, a limit is reached or `signal` aborts
 * (then the abort reason is thrown). The stream is destroyed when reading
 * stops early, which closes the connection.
 */
export async function readBody(body: Readable, options: ReadBodyOptions): Promise<ReadBodyResult> {
  let wire = 0;
  let wireCapped = false;
  // Passes at most maxWireBytes on, then ends: the bytes below the limit are still decoded (a large
  // first chunk must not be thrown away whole), and nothing after it is read.
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (wireCapped) {
        callback();
        return;
      }
      const room = options.maxWireBytes - wire;
      wire += chunk.length;
      if (chunk.length <= room) {
        callback(null, chunk);
        return;
      }
      wireCapped = true;
      if (room > 0) this.push(chunk.subarray(0, room));
      this.push(null);
      callback();
    },
  });
  let stages: Transform[];
  try {
    stages = decoders(options.contentEncoding);
  } catch (error) {
    body.on('error', () => {});
    body.destroy();
    throw error;
  }
  const output: Readable = stages.length === 0 ? body.pipe(counter) : counter;
  if (stages.length > 0) {
    pipeline(body, counter, ...(stages as [Transform]), () => {});
  }
  const source = stages.length === 0 ? output : stages[stages.length - 1]!;
  body.on('error', (error) => counter.destroy(error));

  const result: ReadBodyResult = {
    text: '',
    bytes: 0,
    chars: 0,
    complete: false,
    capped: false,
    encoding: '',
  };
  let head: Buffer[] | undefined = [];
  let headLength = 0;
  let decoder: TextDecoder | undefined;
  const parts: string[] = [];

  const emit = async (text: string): Promise<boolean> => {
    if (text === '') return false;
    result.chars += text.length;
    if (options.sink) await options.sink(text);
    else parts.push(text);
    return options.stopAtChars !== undefined && result.chars >= options.stopAtChars;
  };
  /** Choose the decoder from the head bytes and decode them. */
  const decodeHead = (): string => {
    const bytes = Buffer.concat(head ?? []);
    head = undefined;
    decoder = options.decoderFor(bytes);
    result.encoding = decoder.encoding;
    return decoder.decode(bytes, { stream: true });
  };

  const onAbort = (): void => {
    body.destroy(options.signal.reason);
    source.destroy(options.signal.reason);
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    options.signal.throwIfAborted();
    let stop = false;
    for await (const raw of source) {
      let chunk = raw as Buffer;
      if (result.bytes + chunk.length > options.maxBytes) {
        chunk = chunk.subarray(0, options.maxBytes - result.bytes);
        result.capped = true;
      }
      result.bytes += chunk.length;
      if (head !== undefined) {
        head.push(chunk);
        headLength += chunk.length;
        if (headLength < SNIFF_BYTES && !result.capped) continue;
        stop = await emit(decodeHead());
      } else {
        stop = await emit(decoder!.decode(chunk, { stream: true }));
      }
      if (stop || result.capped) break;
    }
    if (wireCapped) result.capped = true;
    if (!stop && !result.capped) result.complete = true;
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    // A compressed stream cut at the wire limit fails to decompress at its end: that is the cap too.
    if (!wireCapped) throw error;
    result.capped = true;
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    if (!result.complete) {
      body.destroy();
      source.destroy();
    }
  }
  if (head !== undefined) await emit(decodeHead());
  await emit(decoder!.decode());
  result.text = parts.join('');
  return result;
}

/** The signal of one call: aborted by the caller's signal or by the deadline, and disposed when the call ends. */
export interface CallSignal {
  signal: AbortSignal;
  /** True when the deadline (not the caller) aborted the call. */
  timedOut(): boolean;
  /** Stop the timer and detach from the caller's signal (nothing aborts after the call). */
  dispose(): void;
}

/**
 * A deadline covering the whole call (connect, headers and body). Unlike
 * `AbortSignal.timeout`, it is cancelled when the call ends, so a finished
 * request is never aborted later.
 */
export function callSignal(timeoutMs: number, caller?: AbortSignal): CallSignal {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`deadline of ${timeoutMs} ms passed`, 'TimeoutError'));
  }, timeoutMs);
  const onAbort = (): void => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
