/**
 * Bounded output capture and the reference's head + tail truncation. A stream
 * keeps at most `max` bytes of head and `floor(0.4 * max)` bytes of tail (a
 * ring) however much is written, and counts the total, so the text returned
 * is the reference's while memory stays flat.
 */
import { sanitizeForLlm } from '@amplifier/core';
import { BoundedCapture, type CapturedBytes, type CaptureLimits } from '@amplifier/process';

export type { CapturedBytes };

/** The reference's limits for one stream: the first `max` bytes and the last `floor(0.4 * max)` bytes. */
export function captureLimits(max: number): CaptureLimits {
  return { headBytes: max, tailBytes: Math.floor(max * 0.4) };
}

/** Keeps the head and a ring of the tail of a byte stream (core's `BoundedCapture` with `captureLimits(max)`). */
export class OutputCapture extends BoundedCapture {
  readonly max: number;

  constructor(max: number) {
    super(captureLimits(max));
    this.max = max;
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
