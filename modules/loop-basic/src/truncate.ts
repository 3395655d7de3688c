/**
 * Head-and-tail truncation of tool output to a UTF-8 byte budget. The model
 * sees the start and the end of a long output and a marker with the full
 * size, and no UTF-8 sequence is ever cut in half.
 */

/**
 * Return `text` unchanged when it fits in `maxBytes` UTF-8 bytes; otherwise
 * its first and last bytes (together at most `maxBytes`, cut on character
 * boundaries) around a marker such as
 * `[... 812,345 bytes truncated: output was 914,745 bytes; showing the first 51,200 and the last 51,200 ...]`.
 */
export function truncateOutput(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most outputs are decided without encoding.
  if (text.length * 3 <= maxBytes) return text;
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return text;

  const bytes = Buffer.from(text, 'utf8');
  let headEnd = Math.floor(maxBytes / 2);
  let tailStart = total - (maxBytes - headEnd);
  // Back off to the first byte of a character (continuation bytes are 10xxxxxx).
  while (headEnd > 0 && isContinuation(bytes[headEnd]!)) headEnd--;
  while (tailStart < total && isContinuation(bytes[tailStart]!)) tailStart++;

  const shownTail = total - tailStart;
  const marker =
    `\n\n[... ${fmt(total - headEnd - shownTail)} bytes truncated: output was ${fmt(total)} bytes; ` +
    `showing the first ${fmt(headEnd)} and the last ${fmt(shownTail)} ...]\n\n`;
  return bytes.toString('utf8', 0, headEnd) + marker + bytes.toString('utf8', tailStart, total);
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
