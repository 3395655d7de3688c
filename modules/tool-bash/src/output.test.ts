import { seededRandom } from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';
import { decodeText, formatOutput, incompleteSuffix, OutputCapture } from './output.js';

/** The reference algorithm on the whole text (what a non-streaming port would do). */
function referenceTruncate(text: string, max: number): { text: string; truncated: boolean } {
  const size = (s: string): number => Buffer.byteLength(s);
  const total = size(text);
  if (total <= max) return { text, truncated: false };
  const budget = Math.floor(max * 0.4);
  const lines = text.split('\n');
  const head: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + size(line) + 1 > budget) break;
    head.push(line);
    used += size(line) + 1;
  }
  const tail: string[] = [];
  used = 0;
  for (const line of [...lines].reverse()) {
    if (used + size(line) + 1 > budget) break;
    tail.unshift(line);
    used += size(line) + 1;
  }
  const fmt = (n: number): string => n.toLocaleString('en-US');
  const headText = head.join('\n');
  const tailText = tail.join('\n');
  if (size(headText) + size(tailText) >= max * 0.2) {
    return {
      truncated: true,
      text: `${headText}\n\n[...OUTPUT TRUNCATED...]\n[Showing first ${head.length} lines and last ${tail.length} lines]\n[Total output: ${fmt(total)} bytes, limit: ${fmt(max)} bytes]\n[TIP: For large structured output (JSON/XML), redirect to file and read portions]\n\n${tailText}`,
    };
  }
  const bytes = Buffer.from(text);
  // Python's decode(errors="ignore") of a cut: drop the broken character at the cut.
  const headBytes = bytes.subarray(0, budget);
  const h = headBytes.subarray(0, headBytes.length - incompleteSuffix(headBytes));
  let t = bytes.subarray(bytes.length - budget);
  while (t.length > 0 && (t[0]! & 0xc0) === 0x80) t = t.subarray(1);
  return {
    truncated: true,
    text: `${h.toString()}\n\n[...OUTPUT TRUNCATED (byte-level)...]\n[Showing first ~${fmt(h.length)} bytes and last ~${fmt(t.length)} bytes]\n[Total output: ${fmt(total)} bytes, limit: ${fmt(max)} bytes]\n[Note: Line-based truncation failed (very long lines), using byte-level fallback]\n[TIP: For large structured output, redirect to file and read portions]\n\n${t.toString()}`,
  };
}

function capture(bytes: Buffer, max: number, chunk: () => number): OutputCapture {
  const out = new OutputCapture(max);
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, Math.min(bytes.length - at, chunk()));
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

describe('formatOutput over a streaming capture', () => {
  it('matches the reference truncation of the whole text, whatever the chunking (randomized)', () => {
    const rnd = seededRandom(42);
    const alphabet = ['a', 'b', ' ', 'é', '€', '𝄞', '\n', '\n', 'x'];
    const modes = new Set<string>();
    for (let round = 0; round < 400; round++) {
      const max = 20 + Math.floor(rnd() * 400);
      const longLines = rnd() < 0.3;
      let text = '';
      const length = Math.floor(rnd() * max * 4);
      for (let k = 0; k < length; k++) {
        const c = alphabet[Math.floor(rnd() * alphabet.length)]!;
        text += longLines && c === '\n' ? 'y' : c;
      }
      const bytes = Buffer.from(text);
      const out = capture(bytes, max, () => 1 + Math.floor(rnd() * (rnd() < 0.5 ? 8 : max * 2)));
      const got = formatOutput(out.bytes(), max);
      const want = referenceTruncate(text, max);
      expect({ text: got.text, truncated: got.truncated }, `round ${round}, max ${max}`).toEqual(want);
      expect(got.totalBytes).toBe(bytes.length);
      modes.add(!got.truncated ? 'whole' : got.text.includes('(byte-level)') ? 'bytes' : 'lines');
    }
    expect([...modes].sort()).toEqual(['bytes', 'lines', 'whole']);
  });

  it('keeps at most max bytes of head and 0.4 * max of tail however much is pushed', () => {
    const out = new OutputCapture(1000);
    const chunk = Buffer.alloc(65_536, 'z');
    for (let k = 0; k < 200; k++) out.push(chunk);
    const { head, tail, total } = out.bytes();
    expect(head.length).toBe(1000);
    expect(tail.length).toBe(400);
    expect(total).toBe(200 * 65_536);
  });

  it('uses the line indicator with thousands separators', () => {
    const text = `${Array.from({ length: 30_000 }, (_, k) => `line ${k}`).join('\n')}\n`;
    const out = capture(Buffer.from(text), 100_000, () => 4096);
    const { text: result, truncated, totalBytes } = formatOutput(out.bytes(), 100_000);
    expect(truncated).toBe(true);
    expect(totalBytes).toBe(Buffer.byteLength(text));
    expect(result).toContain('[...OUTPUT TRUNCATED...]');
    expect(result).toContain(
      `[Total output: ${totalBytes.toLocaleString('en-US')} bytes, limit: 100,000 bytes]`,
    );
    expect(result.startsWith('line 0\nline 1\n')).toBe(true);
    expect(result.endsWith('line 29999\n')).toBe(true);
  });

  it('falls back to bytes for one long line and never splits a character', () => {
    const text = '€'.repeat(100_000); // 300,000 bytes, one line
    const out = capture(Buffer.from(text), 100_000, () => 65_536);
    const { text: result } = formatOutput(out.bytes(), 100_000);
    expect(result).toContain('[...OUTPUT TRUNCATED (byte-level)...]');
    expect(result).toContain('[Showing first ~39,999 bytes and last ~39,999 bytes]');
    expect(result).not.toContain('\uFFFD');
    expect(Buffer.from(result).toString()).toBe(result);
  });
});

describe('decoding', () => {
  it('replaces invalid bytes and strips control characters except tab, LF and CR', () => {
    expect(
      decodeText(Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x62, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x09, 0x0d])),
    ).toBe('\uFFFD\uFFFDab[31m\t\r');
  });

  it('incompleteSuffix finds a character cut at the end', () => {
    const euro = Buffer.from('€'); // e2 82 ac
    expect(incompleteSuffix(euro)).toBe(0);
    expect(incompleteSuffix(euro.subarray(0, 2))).toBe(2);
    expect(incompleteSuffix(euro.subarray(0, 1))).toBe(1);
    expect(incompleteSuffix(Buffer.from('ab'))).toBe(0);
    expect(incompleteSuffix(Buffer.alloc(0))).toBe(0);
  });
});
