import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBody } from './body.js';

const utf8 = () => new TextDecoder('utf-8');

function oneChunk(bytes: Buffer): Readable {
  return Readable.from([bytes], { objectMode: false });
}

describe('readBody limits', () => {
  it('a first chunk larger than the wire limit is cut at the limit, not thrown away', async () => {
    const body = Buffer.from('0123456789'.repeat(20_000)); // 200 KB in one chunk
    const result = await readBody(oneChunk(body), {
      contentEncoding: undefined,
      maxBytes: 1000,
      maxWireBytes: 1000 + 65_536,
      decoderFor: utf8,
      signal: new AbortController().signal,
    });
    expect(result.text).toBe(body.subarray(0, 1000).toString());
    expect(result).toMatchObject({ capped: true, complete: false, bytes: 1000 });
  });

  it('stops at the wire limit with a sink, handing over what came before it', async () => {
    const body = Buffer.from('abcdefghij'.repeat(10_000)); // 100 KB
    const seen: string[] = [];
    const result = await readBody(oneChunk(body), {
      contentEncoding: undefined,
      maxBytes: 1_000_000,
      maxWireBytes: 4096,
      sink: (text) => {
        seen.push(text);
      },
      decoderFor: utf8,
      signal: new AbortController().signal,
    });
    expect(seen.join('')).toBe(body.subarray(0, 4096).toString());
    expect(result).toMatchObject({ capped: true, complete: false });
  });

  it('a compressed body cut at the wire limit is a cap, not a decompression error', async () => {
    const plain = Buffer.from(Array.from({ length: 50_000 }, (_, i) => `line ${i} ${i * 7919}\n`).join(''));
    const compressed = gzipSync(plain);
    const result = await readBody(oneChunk(compressed), {
      contentEncoding: 'gzip',
      maxBytes: 10_000_000,
      maxWireBytes: Math.floor(compressed.length / 2),
      decoderFor: utf8,
      signal: new AbortController().signal,
    });
    expect(result.capped).toBe(true);
    expect(result.complete).toBe(false);
    expect(plain.toString().startsWith(result.text)).toBe(true);
  });

  it('a body within both limits is complete', async () => {
    const result = await readBody(oneChunk(Buffer.from('hello')), {
      contentEncoding: undefined,
      maxBytes: 10,
      maxWireBytes: 10,
      decoderFor: utf8,
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ text: 'hello', complete: true, capped: false });
  });
});
