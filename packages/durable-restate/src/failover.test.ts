/**
 * Turns that outlive their worker and their server: real restate-server,
 * workers as child processes killed with SIGKILL, a fake LLM server and a
 * gate server that count every provider call and every tool run.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { waitFor } from '@amplifier/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cluster,
  countOf,
  gateCall,
  gateText,
  heldReply,
  llmCalls,
  logRecords,
  type RunningWorker,
  skipWithoutRestate,
  startCluster,
  textReply,
} from './__fixtures__/cluster.js';
import { type InvocationStatus, invocationStatus, JOURNAL_MISMATCH } from './admin.js';

const skip = skipWithoutRestate();

describe.skipIf(skip)('durable turns on Restate', () => {
  let cluster: Cluster;
  let worker: RunningWorker;
  beforeAll(async () => {
    cluster = await startCluster();
    worker = await cluster.spawnWorker();
    await cluster.route([worker]);
  });
  afterAll(() => cluster?.close());

  /** Calls of the fake LLM server and the gate since `mark()`. */
  function counter() {
    const llm0 = llmCalls(cluster.llm);
    const gate0 = cluster.gate.requests.length;
    return {
      llm: () => llmCalls(cluster.llm) - llm0,
      llmBodies: () =>
        cluster.llm.requests
          .filter((r) => r.url.includes('/chat/completions'))
          .slice(llm0)
          .map((r) => r.body),
      gate: () => cluster.gate.requests.slice(gate0),
    };
  }

  /** True once `session`'s log holds one `event` record (hooks-logging writes in batches, off the emit). */
  function logged(session: string, event: string): Promise<boolean> {
    return waitFor(async () => countOf(await logRecords(cluster.logDir, session), event) === 1, {
      timeoutMs: 10_000,
    });
  }

  /** Replace the worker: kill -9 the current one, start another, route turns to it. */
  async function failOver(options: { withGate?: boolean } = {}): Promise<RunningWorker> {
    expect(await worker.child.kill('SIGKILL')).toBe('SIGKILL');
    worker = await cluster.spawnWorker(options);
    await cluster.route([worker]);
    return worker;
  }

  it('kill -9 mid-tool: the next worker replays the provider step, re-runs the tool with the same key, logs nothing twice', async () => {
    const count = counter();
    const first = worker;
    const held = heldReply();
    cluster.llm.enqueue(gateCall('call_kt'), textReply('after the tool'));
    cluster.gate.enqueue(held.reply, gateText('tool output'));
    const sent = await cluster.client.send('kill-tool', 'go', 'key-kill-tool');
    expect(sent.status).toBe('Accepted');
    await held.arrived;
    // The first worker's records are on disk before it dies (hooks-logging writes in batches).
    expect(await logged('kill-tool', 'tool:pre')).toBe(true);
    const second = await failOver();

    const result = await cluster.client.attach(sent.invocationId);
    expect(result).toEqual({ session_id: 'kill-tool', answer: 'after the tool', message_count: 4 });
    expect(count.llm()).toBe(2); // llm:0 answered from the journal, never asked again
    const runs = count.gate();
    expect(runs.map((r) => r.url.split('?')[0])).toEqual(['/tool/call_kt', '/tool/call_kt']);
    expect(runs.map((r) => new URL(r.url, 'http://x').searchParams.get('pid'))).toEqual([
      String(first.pid),
      String(second.pid),
    ]);

    const records = await logRecords(cluster.logDir, 'kill-tool');
    expect(countOf(records, 'session:start')).toBe(1);
    expect(countOf(records, 'prompt:submit')).toBe(1);
    expect(countOf(records, 'provider:request', { iteration: 0 })).toBe(1);
    expect(countOf(records, 'provider:request', { iteration: 1 })).toBe(1);
    expect(countOf(records, 'llm:request')).toBe(2);
    // The tool ran twice (killed, then re-run), but its tool:pre was replayed: one record each.
    expect(countOf(records, 'tool:pre', { tool_call_id: 'call_kt' })).toBe(1);
    expect(countOf(records, 'tool:post')).toBe(1);
    expect(countOf(records, 'prompt:complete')).toBe(1);
  });

  it('kill -9 mid-provider call: the completed provider call and tool are not repeated', async () => {
    const count = counter();
    const held = heldReply();
    cluster.llm.enqueue(gateCall('call_kp'), held.reply, textReply('after the provider'));
    cluster.gate.enqueue(gateText('tool output'));
    const sent = await cluster.client.send('kill-provider', 'go', 'key-kill-provider');
    await held.arrived;
    // The tool's records are on disk before the worker dies: hooks-logging writes in batches, and a
    // record still queued in a killed worker is lost (its step is journaled, so it is not replayed).
    expect(await logged('kill-provider', 'tool:post')).toBe(true);
    await failOver();
    await held.abandoned;

    const result = await cluster.client.attach(sent.invocationId);
    expect(result.answer).toBe('after the provider');
    expect(count.gate()).toHaveLength(1);
    const bodies = count.llmBodies();
    // llm:0 once; llm:1 twice (the killed call, then the next worker's).
    expect(bodies.map((b) => b.messages.length)).toEqual([1, 3, 3]);
    const records = await logRecords(cluster.logDir, 'kill-provider');
    expect(countOf(records, 'provider:request', { iteration: 0 })).toBe(1);
    expect(countOf(records, 'tool:pre')).toBe(1);
    expect(countOf(records, 'tool:post')).toBe(1);
  });

  it('the server restarted mid-turn: the turn resumes from the journal and the caller attaches again', async () => {
    const count = counter();
    const held = heldReply();
    cluster.llm.enqueue(gateCall('call_rs'), textReply('after the restart'));
    cluster.gate.enqueue(held.reply, gateText('tool output'));
    const sent = await cluster.client.send('restart', 'go', 'key-restart');
    expect(sent.status).toBe('Accepted');
    await held.arrived;
    await cluster.restate.restart();
    // The worker abandons the attempt its server dropped: the running tool is aborted.
    await held.abandoned;

    const result = await cluster.client.attachByKey('restart', 'key-restart');
    expect(result.answer).toBe('after the restart');
    expect(count.llm()).toBe(2);
    expect(count.gate().map((r) => r.url.split('?')[0])).toEqual(['/tool/call_rs', '/tool/call_rs']);
    const transcript = (await cluster.client.transcript('restart')) as { role: string; content: unknown }[];
    expect(transcript.find((m) => m.role === 'tool')?.content).toBe('tool output');
  });

  it('a replay that takes another path (a value outside the journal changed control flow) is detected and reported, and resumes once a worker agrees with the journal', async () => {
    const held = heldReply();
    cluster.llm.enqueue(gateCall('call_nd'), held.reply);
    cluster.gate.enqueue(gateText('tool output'));
    const sent = await cluster.client.send('diverge', 'go', 'key-diverge');
    await held.arrived;
    // The next worker's session has no `gate` tool: replaying the journal, the loop answers the
    // call with "tool not found" instead of running step tool:call_nd, and asks for llm:1.
    const llmBefore = llmCalls(cluster.llm);
    const divergent = await failOver({ withGate: false });
    let status: InvocationStatus | undefined;
    const reported = await waitFor(
      async () => {
        status = await invocationStatus(cluster.restate.adminUrl, sent.invocationId);
        return status?.lastFailure?.code === JOURNAL_MISMATCH;
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    expect(reported).toBe(true);
    expect(status?.problem).toMatch(/^Deterministic replay violation: .*name: tool:call_nd != llm:1/);
    expect(status?.status).not.toBe('completed');
    const workerLog = await readFile(path.join(cluster.logDir, `worker-${divergent.pid}.log`), 'utf8');
    expect(workerLog).toContain("session 'diverge': deterministic replay violation");
    // Not silently diverging: the replay stopped at the mismatch, before asking the model anything.
    expect(llmCalls(cluster.llm)).toBe(llmBefore);
    // A worker that agrees with the journal finishes the turn (Restate keeps retrying).
    cluster.llm.enqueue(textReply('converged'));
    cluster.gate.enqueue(gateText('tool output'));
    await failOver();
    expect((await cluster.client.attach(sent.invocationId)).answer).toBe('converged');
  });

  it('50 sessions across two workers', async () => {
    const count = counter();
    const other = await cluster.spawnWorker();
    await cluster.route([worker, other]);
    cluster.llm.fallback((request, response) => {
      const messages = request.body.messages as { role: string }[];
      const reply = messages.at(-1)?.role === 'tool' ? textReply('ok') : gateCall('call_many');
      return reply(request, response);
    });
    cluster.gate.fallback(gateText('tool output'));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => cluster.client.run(`many-${i}`, 'go', `key-many-${i}`)),
    );
    expect(results.map((r) => r.answer)).toEqual(Array(50).fill('ok'));
    expect(count.llm()).toBe(100);
    const pids = new Set(count.gate().map((r) => new URL(r.url, 'http://x').searchParams.get('pid')));
    expect(pids).toEqual(new Set([String(worker.pid), String(other.pid)]));
  });
});
