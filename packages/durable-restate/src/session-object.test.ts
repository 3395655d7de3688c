/**
 * The session object through Restate's ingress: transcript across turns,
 * idempotent starts, one turn at a time per session, cancellation reaching
 * the running tool, bad input answered with a clear error.
 */
import type { FakeReply } from '@amplifier/provider-http/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  gateCall,
  gateCalls,
  gateText,
  heldReply,
  llmCalls,
  skipWithoutRestate,
  startCluster,
  textReply,
} from './__fixtures__/cluster.js';
import { cancelInvocation } from './admin.js';
import { TurnError } from './turn-client.js';

const skip = skipWithoutRestate();

describe.skipIf(skip)('the session object', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster();
    await cluster.route([await cluster.spawnWorker()]);
  });
  afterAll(() => cluster?.close());

  it('runs a tool turn, stores the transcript, and the next turn sees it', async () => {
    cluster.llm.enqueue(gateCall('call_1'), textReply('done: one'), textReply('second'));
    cluster.gate.enqueue(gateText('gate-output'));
    const first = await cluster.client.run('s1', 'hello', 'k1');
    expect(first).toEqual({ session_id: 's1', answer: 'done: one', message_count: 4 });
    const second = await cluster.client.run('s1', 'again', 'k2');
    expect(second.message_count).toBe(6);
    const lastRequest = cluster.llm.requests.at(-1)!.body;
    expect(lastRequest.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(cluster.gate.requests.at(-1)!.url).toMatch(/^\/tool\/call_1\?/);
    const transcript = await cluster.client.transcript('s1');
    expect(transcript).toHaveLength(6);
  });

  it('tool calls of one response run at once, each a journaled step', async () => {
    const a = heldReply();
    const b = heldReply();
    cluster.llm.enqueue(gateCalls(['call_x', 'call_y']), textReply('both done'));
    cluster.gate.enqueue(a.reply, b.reply);
    const sent = await cluster.client.send('parallel', 'go', 'p1');
    // Both calls are running before either answers.
    await Promise.all([a.arrived, b.arrived]);
    // Each answers with its own idempotency key; the second to arrive answers first.
    const key: FakeReply = (request, response) => {
      response.writeHead(200).end(`ran ${request.url.split('?')[0]!.split('/').pop()}`);
    };
    b.release(key);
    a.release(key);
    expect((await cluster.client.attach(sent.invocationId)).answer).toBe('both done');
    const transcript = (await cluster.client.transcript('parallel')) as { role: string; content: unknown }[];
    // Results in the model's order, whatever order the tools finished in.
    expect(transcript.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'ran call_x',
      'ran call_y',
    ]);
  });

  it('a re-sent start with the same idempotency key is the same turn, run once', async () => {
    cluster.llm.enqueue(textReply('once'));
    const before = llmCalls(cluster.llm);
    const a = await cluster.client.send('idem', 'hi', 'same-key');
    const b = await cluster.client.send('idem', 'hi', 'same-key');
    expect(b.invocationId).toBe(a.invocationId);
    expect(b.status).toBe('PreviouslyAccepted');
    expect((await cluster.client.attach(a.invocationId)).answer).toBe('once');
    expect((await cluster.client.run('idem', 'hi', 'same-key')).answer).toBe('once');
    expect((await cluster.client.attachByKey('idem', 'same-key')).answer).toBe('once');
    expect(llmCalls(cluster.llm) - before).toBe(1);
  });

  it('two turns sent at once to one session run one after the other', async () => {
    const held = heldReply();
    cluster.llm.enqueue(gateCall('call_q'), textReply('first done'), textReply('second done'));
    cluster.gate.enqueue(held.reply);
    const first = await cluster.client.send('queue', 'one', 'q1');
    const second = await cluster.client.send('queue', 'two', 'q2');
    await held.arrived;
    held.release(gateText('tool output'));
    expect((await cluster.client.attach(first.invocationId)).answer).toBe('first done');
    expect((await cluster.client.attach(second.invocationId)).answer).toBe('second done');
    // The second turn started from the first one's whole transcript.
    const secondRequest = cluster.llm.requests.at(-1)!.body;
    expect(secondRequest.messages.map((m: { content: unknown }) => m.content)).toEqual([
      'one',
      null,
      'tool output',
      'first done',
      'two',
    ]);
  });

  it("Restate's cancel reaches the running tool's AbortSignal and fails the turn as cancelled", async () => {
    const held = heldReply();
    cluster.llm.enqueue(gateCall('call_c'));
    cluster.gate.enqueue(held.reply);
    const sent = await cluster.client.send('cancel', 'go', 'c1');
    await held.arrived;
    await cancelInvocation(cluster.restate.adminUrl, sent.invocationId);
    await held.abandoned; // the tool's fetch was aborted by its signal
    const error = await cluster.client.attach(sent.invocationId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnError);
    expect((error as TurnError).status).toBe(409);
    expect((error as TurnError).message).toMatch(/cancel/i);
    // A cancelled turn stores nothing: the session has no transcript.
    expect(await cluster.client.transcript('cancel')).toEqual([]);
  });

  it('a turn without a prompt is refused with what to send', async () => {
    const error = await cluster.client.run('bad', '', 'b1').catch((e: unknown) => e as TurnError);
    expect(error).toBeInstanceOf(TurnError);
    expect((error as TurnError).status).toBe(400);
    expect((error as TurnError).message).toMatch(/\{"prompt": "\.\.\."\}/);
  });
});
