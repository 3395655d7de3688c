/**
 * The streaming contract (`streamingConformance`) over ConverseStream: the
 * recorded binary event stream (tool use) and a text stream built from its
 * own first block, served as `application/vnd.amazon.eventstream` by a
 * 127.0.0.1 server; the recorded stream dropped after its first deltas; the
 * recorded ValidationException; the recorded Converse answer for
 * `metadata.stream === false`. (`replayedStreams` is the kit's helper for SSE
 * recordings; this binary wire gets its own scenario table.)
 */
import type { StreamingUnderTest } from '@amplifier/provider-http/testing';
import { FakeLlmServer, reply, streamingConformance } from '@amplifier/provider-http/testing';
import { afterAll, beforeAll } from 'vitest';
import { isolateAwsEnv, recorded, testProvider } from './__fixtures__/env.js';
import { encodeStream, event, eventStreamReply, parseJsonl } from './__fixtures__/eventstream.js';

let restoreEnv: () => void;
beforeAll(() => {
  restoreEnv = isolateAwsEnv();
});
afterAll(() => restoreEnv());

const STREAM = recorded('bedrock-converse-stream-tooluse.eventstream');
const frames = parseJsonl(recorded('bedrock-converse-stream-tooluse.events.jsonl').toString('utf8'));
const firstStop = frames.findIndex((f) => f.headers[':event-type'] === 'contentBlockStop');
const TEXT = encodeStream([
  ...frames.slice(0, firstStop + 1),
  event('messageStop', { stopReason: 'end_turn' }),
  frames.at(-1)!,
]);
const DROPPED = encodeStream(frames.slice(0, 6));

const subject: StreamingUnderTest = {
  async start(scenario, hooks) {
    const server = await FakeLlmServer.start();
    server.enqueue(
      scenario === 'text'
        ? eventStreamReply(TEXT, { pieceSize: 61 })
        : scenario === 'tool_use'
          ? eventStreamReply(STREAM, { pieceSize: 61 })
          : scenario === 'fail_after_delta'
            ? eventStreamReply(DROPPED, { drop: true })
            : scenario === 'fail_before_delta'
              ? reply.json(400, JSON.parse(recorded('bedrock-error-400-validation.json').toString('utf8')), {
                  'x-amzn-errortype':
                    'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
                })
              : reply.json(200, JSON.parse(recorded('bedrock-converse-tooluse.json').toString('utf8'))),
    );
    const provider = testProvider(server.url, {}, hooks);
    return {
      provider,
      async close() {
        await provider.close();
        await server.close();
      },
    };
  },
};

streamingConformance(subject);
