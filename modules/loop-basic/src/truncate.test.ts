import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { truncateOutput } from './truncate.js';

const MARKER =
  /\n\n\[\.\.\. ([\d,]+) bytes truncated: output was ([\d,]+) bytes; showing the first ([\d,]+) and the last ([\d,]+) \.\.\.\]\n\n/;
const num = (s: string): number => Number(s.replace(/,/g, ''));

describe('truncateOutput', () => {
  it('returns text within the budget unchanged (the same string)', () => {
    const text = 'x'.repeat(1000);
    expect(truncateOutput(text, 1000)).toBe(text);
    expect(truncateOutput('ééé', 6)).toBe('ééé');
  });

  it('keeps head and tail around a marker with the full size', () => {
    const text = `${'a'.repeat(600)}${'b'.repeat(600)}`;
    const out = truncateOutput(text, 400);
    const match = MARKER.exec(out)!;
    expect(match).not.toBeNull();
    expect(num(match[2]!)).toBe(1200);
    expect(num(match[3]!)).toBe(200);
    expect(num(match[4]!)).toBe(200);
    expect(num(match[1]!)).toBe(800);
    expect(out.startsWith('a'.repeat(200))).toBe(true);
    expect(out.endsWith('b'.repeat(200))).toBe(true);
  });

  it('never splits a UTF-8 sequence (4-byte emoji at every offset)', () => {
    for (let pad = 0; pad < 4; pad++) {
      const text = `${'x'.repeat(pad)}${'😀'.repeat(100)}`;
      const out = truncateOutput(text, 101);
      expect(out).not.toContain('\uFFFD');
      const match = MARKER.exec(out)!;
      const head = out.slice(0, match.index);
      const tail = out.slice(match.index + match[0].length);
      expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(101);
      expect(text.startsWith(head)).toBe(true);
      expect(text.endsWith(tail)).toBe(true);
      expect(tail.length).toBeGreaterThan(0);
    }
  });

  it('property: output is valid, within budget plus the marker, and a prefix/suffix of the input', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 8, max: 300 }),
        (text, max) => {
          const out = truncateOutput(text, max);
          const total = Buffer.byteLength(text);
          if (total <= max) {
            expect(out).toBe(text);
            return;
          }
          const match = MARKER.exec(out);
          expect(match).not.toBeNull();
          expect(num(match![2]!)).toBe(total);
          const head = out.slice(0, match!.index);
          const tail = out.slice(match!.index + match![0].length);
          expect(text.startsWith(head)).toBe(true);
          expect(text.endsWith(tail)).toBe(true);
          expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(max);
          expect(Buffer.byteLength(head)).toBe(num(match![3]!));
          expect(Buffer.byteLength(tail)).toBe(num(match![4]!));
          expect(Buffer.from(head + tail).toString()).toBe(head + tail);
        },
      ),
      { numRuns: 500 },
    );
  });
});
