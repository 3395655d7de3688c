import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, gateCall, gateText, llmCalls, skipReason, startCluster, textReply } from './__fixtures__/cluster.js';

const reason = skipReason();
if (reason) console.log(`durable-restate tests skipped: ${reason}`);

describe.skipIf(reason !== undefined)('a turn through Restate', () => {
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
    expect(llmCalls(cluster.llm)).toBe(3);
    const lastRequest = cluster.llm.requests.at(-1)!.body;
    expect(lastRequest.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(cluster.gate.requests[0]!.url).toMatch(/^\/tool\/call_1\?/);
  });
});
