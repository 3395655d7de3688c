import { describe, expect, it } from 'vitest';
import { type SseMessage, sseEvents, sseJson } from './sse.js';
import { splitBytes } from './testing/fake-llm-server.js';

const context = { provider: 'test', model: 'm' };

async function* bodyOf(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

async function collect(chunks: readonly Uint8Array[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of sseEvents(bodyOf(chunks), context, undefined)) out.push(message);
  return out;
}

describe('SSE decoding (eventsource-parser)', () => {
  const stream =
    ': comment line\r\n\r\n' +
    'event: message\r\ndata: {"a":1}\r\n\r\n' +
    ':keep-alive\n\n' +
    'data: first line\ndata: second line é ✓\n\n' +
    'id: 7\rdata: cr only\r\r' +
    'data: [DONE]\n\n';

  it('split at every byte (inside CRLF and inside UTF-8 characters) gives the same messages', async () => {
    const whole = await collect([Buffer.from(stream)]);
    expect(await collect(splitBytes(stream, 1))).toEqual(whole);
    expect(await collect(splitBytes(stream, 7))).toEqual(whole);
    expect(whole.map((m) => m.data)).toEqual(['{"a":1}', 'first line\nsecond line é ✓', 'cr only', '[DONE]']);
    expect(whole[0]!.event).toBe('message');
    expect(whole[1]!.event).toBeUndefined();
    expect(whole[2]!.id).toBe('7');
  });

  it('comments and keep-alives produce no messages; a message cut off at the end is dropped', async () => {
    const messages = await collect([Buffer.from(':ping\n\n: keep-alive\n\ndata: {"x":1}\n\ndata: {"cut')]);
    expect(messages.map((m) => m.data)).toEqual(['{"x":1}']);
  });

  it('a consumer that stops early releases the body', async () => {
    let released = false;
    const body = (async function* () {
      try {
        yield Buffer.from('data: 1\n\ndata: 2\n\n');
        yield Buffer.from('data: 3\n\n');
      } finally {
        released = true;
      }
    })();
    for await (const message of sseEvents(body, context, undefined)) {
      expect(message.data).toBe('1');
      break;
    }
    expect(released).toBe(true);
  });

  it('a failing body is a stream error (abort when the signal fired)', async () => {
    const failing = async function* () {
      yield Buffer.from('data: 1\n\n');
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    };
    const seen: string[] = [];
    const drain = async (signal?: AbortSignal) => {
      for await (const m of sseEvents(failing(), context, signal)) seen.push(m.data);
    };
    await expect(drain()).rejects.toMatchObject({ kind: 'stream', retryable: true });
    expect(seen).toEqual(['1']);
    await expect(drain(AbortSignal.abort())).rejects.toMatchObject({ kind: 'abort' });
  });

  it('sseJson: the data as a JSON object, anything else a retryable stream error quoting it', () => {
    expect(sseJson({ data: '{"a":1}' }, context)).toEqual({ a: 1 });
    for (const data of ['{oops', 'null', '[1]', '5']) {
      let thrown: unknown;
      try {
        sseJson({ data }, context);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ kind: 'stream', retryable: true, provider: 'test' });
      expect((thrown as Error).message).toBe(`test: malformed JSON in the stream: ${data}`);
    }
  });
});
