import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedCapture } from './capture.js';

/** Push `bytes` in chunks of the given sizes (cycled), then the rest. */
function pushAll(capture: BoundedCapture, bytes: Buffer, sizes: number[]): void {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes.length === 0 ? bytes.length : sizes[i % sizes.length]!;
    capture.push(bytes.subarray(at, at + size));
    at += size;
  }
}

describe('BoundedCapture', () => {
  it('keeps exactly the first headBytes and the last tailBytes, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.nat({ max: 200 }),
        fc.nat({ max: 200 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 8 }),
        (data, headBytes, tailBytes, sizes) => {
          const bytes = Buffer.from(data);
          const capture = new BoundedCapture({ headBytes, tailBytes });
          pushAll(capture, bytes, sizes);
          const kept = capture.bytes();
          expect(kept.total).toBe(bytes.length);
          expect(kept.head).toEqual(bytes.subarray(0, headBytes));
          expect(kept.tail).toEqual(bytes.subarray(bytes.length - Math.min(tailBytes, bytes.length)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('without tailBytes keeps the head only and still counts every byte', () => {
    const capture = new BoundedCapture({ headBytes: 4 });
    capture.push(Buffer.from('abcdef'));
    capture.push(Buffer.from('ghij'));
    expect(capture.bytes()).toEqual({ head: Buffer.from('abcd'), tail: Buffer.alloc(0), total: 10 });
    expect(capture.total).toBe(10);
  });

  it('copies what it keeps: a chunk reused by its stream does not change the capture', () => {
    const capture = new BoundedCapture({ headBytes: 3, tailBytes: 2 });
    const chunk = Buffer.from('abcd');
    capture.push(chunk);
    const before = capture.bytes();
    chunk.fill(0x7a);
    expect(capture.bytes()).toEqual(before);
    expect(before).toEqual({ head: Buffer.from('abc'), tail: Buffer.from('cd'), total: 4 });
  });

  it('what bytes() returned does not change with later pushes', () => {
    const capture = new BoundedCapture({ headBytes: 1, tailBytes: 4 });
    capture.push(Buffer.from('abc'));
    const first = capture.bytes();
    capture.push(Buffer.from('xyz'));
    expect(first.tail.toString()).toBe('abc');
    expect(capture.bytes().tail.toString()).toBe('cxyz');
  });
});
