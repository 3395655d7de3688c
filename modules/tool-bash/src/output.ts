/**
 * Bounded output capture and the reference's head + tail truncation. A stream
 * keeps at most `max` bytes of head and `floor(0.4 * max)` bytes of tail (a
 * ring) however much is written, and counts the total, so the text returned
 * is the reference's while memory stays flat.
 */
import { sanitizeForLlm } from '@amplifier/core';

/** The first `min(total, max)` bytes, the last `min(total, floor(0.4 * max))` bytes, and the total. */
export interface CapturedBytes {
  head: Buffer;
  tail: Buffer;
  total: number;
}

/** Keeps the head and a ring of the tail of a byte stream; `push` never grows past the limits. */
export class OutputCapture {
  readonly max: number;
  #total = 0;
  readonly #headChunks: Buffer[] = [];
  #headLength = 0;
  readonly #tailCap: number;
  #ring: Buffer | undefined;
  #ringPos = 0;
  #ringLength = 0;

  constructor(max: number) {
    this.max = max;
    this.#tailCap = Math.floor(max * 0.4);
  }

  get total(): number {
    return this.#total;
  }

  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headLength < this.max) {
      const take = Math.min(this.max - this.#headLength, rest.length);
      this.#headChunks.push(Buffer.from(rest.subarray(0, take))); // a copy: never pin the pooled chunk
      this.#headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.#tailCap === 0) return;
    // Bytes past the head go to the ring; the tail may also reach back into the head (see tail()).
    this.#ring ??= Buffer.allocUnsafe(this.#tailCap);
    if (rest.length >= this.#tailCap) {
      this.#ring.set(rest.subarray(rest.length - this.#tailCap), 0);
      this.#ringPos = 0;
      this.#ringLength = this.#tailCap;
      return;
    }
    const first = Math.min(rest.length, this.#tailCap - this.#ringPos);
    this.#ring.set(rest.subarray(0, first), this.#ringPos);
    this.#ring.set(rest.subarray(first), 0);
    this.#ringPos = (this.#ringPos + rest.length) % this.#tailCap;
    this.#ringLength = Math.min(this.#tailCap, this.#ringLength + rest.length);
  }

  bytes(): CapturedBytes {
    const head = Buffer.concat(this.#headChunks, this.#headLength);
    return { head, tail: this.#tail(head), total: this.#total };
  }

  #tail(head: Buffer): Buffer {
    const want = Math.min(this.#tailCap, this.#total);
    let ring: Buffer = Buffer.alloc(0);
    if (this.#ring !== undefined) {
      ring =
        this.#ringLength < this.#tailCap
          ? this.#ring.subarray(0, this.#ringLength)
          : Buffer.concat([this.#ring.subarray(this.#ringPos), this.#ring.subarray(0, this.#ringPos)]);
    }
    const fromHead = want - ring.length;
    return fromHead > 0 ? Buffer.concat([head.subarray(head.length - fromHead), ring]) : ring;
  }
}

/** A stream as the tool returns it. */
export interface FormattedOutput {
  text: string;
  truncated: boolean;
  totalBytes: number;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** UTF-8 text with invalid bytes replaced (U+FFFD) and control characters removed. */
export function decodeText(bytes: Uint8Array): string {
  return sanitizeForLlm(decoder.decode(bytes));
}

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The reference's truncation: unchanged up to `max` bytes; otherwise whole
 * lines from the head and from the tail within `floor(0.4 * max)` bytes each,
 * or, when those lines hold less than `0.2 * max` bytes (very long lines), a
 * byte-level head and tail cut on UTF-8 character boundaries.
 */
export function formatOutput(captured: CapturedBytes, max: number): FormattedOutput {
  const { head, tail, total } = captured;
  if (total <= max) return { text: decodeText(head), truncated: false, totalBytes: total };
  const budget = Math.floor(max * 0.4);

  let headEnd = 0;
  let headLines = 0;
  for (let pos = 0, used = 0; ; ) {
    const nl = head.indexOf(0x0a, pos);
    const lineEnd = nl < 0 ? head.length : nl;
    used += lineEnd - pos + 1;
    if (used > budget) break;
    headLines++;
    headEnd = lineEnd;
    if (nl < 0) break;
    pos = nl + 1;
  }
  let tailStart = tail.length;
  let tailLines = 0;
  for (let end = tail.length, used = 0; ; ) {
    const nl = end === 0 ? -1 : tail.lastIndexOf(0x0a, end - 1);
    const lineStart = nl + 1;
    used += end - lineStart + 1;
    if (used > budget) break;
    tailLines++;
    tailStart = lineStart;
    if (nl < 0) break;
    end = nl;
  }

  const summary = `[Total output: ${thousands(total)} bytes, limit: ${thousands(max)} bytes]\n`;
  if (headEnd + (tail.length - tailStart) >= max * 0.2) {
    const marker =
      '\n\n[...OUTPUT TRUNCATED...]\n' +
      `[Showing first ${headLines} lines and last ${tailLines} lines]\n` +
      summary +
      '[TIP: For large structured output (JSON/XML), redirect to file and read portions]\n\n';
    return {
      text: decodeText(head.subarray(0, headEnd)) + marker + decodeText(tail.subarray(tailStart)),
      truncated: true,
      totalBytes: total,
    };
  }
  const headBytes = utf8Head(head.subarray(0, budget));
  const tailBytes = utf8Tail(tail.subarray(Math.max(0, tail.length - budget)));
  const marker =
    '\n\n[...OUTPUT TRUNCATED (byte-level)...]\n' +
    `[Showing first ~${thousands(headBytes.length)} bytes and last ~${thousands(tailBytes.length)} bytes]\n` +
    summary +
    '[Note: Line-based truncation failed (very long lines), using byte-level fallback]\n' +
    '[TIP: For large structured output, redirect to file and read portions]\n\n';
  return { text: decodeText(headBytes) + marker + decodeText(tailBytes), truncated: true, totalBytes: total };
}

/** Length of the incomplete UTF-8 sequence at the end of `bytes` (0 when it ends on a boundary). */
export function incompleteSuffix(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return size > back ? back : 0;
  }
  return 0;
}

/** Drop an incomplete character at the end. */
function utf8Head(bytes: Buffer): Buffer {
  return bytes.subarray(0, bytes.length - incompleteSuffix(bytes));
}

/** Drop continuation bytes of a character cut at the start. */
function utf8Tail(bytes: Buffer): Buffer {
  let start = 0;
  while (start < Math.min(3, bytes.length) && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start);
}
