/**
 * What the durable tests run against: a real Restate server from the npm
 * binary (free 127.0.0.1 ports, a temp base dir, stopped by PID), a fake LLM
 * server and a gate server (both count every request), a load balancer in
 * front of the workers, and workers as real child processes (`kill -9` is real).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeLlmServer, type FakeReply, sseEvent } from '@amplifier/provider-http/testing';
import { type ReadyChild, skipUnless, startReadyChild } from '@amplifier/test-fixtures';
import { registerDeployment } from '../admin.js';
import { findRestateServerBinary, type LocalRestate, startLocalRestate } from '../local-server.js';
import { type Balancer, startBalancer } from '../testing/index.js';
import { TurnClient } from '../turn-client.js';

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));

/**
 * Whether to skip the tests that need a Restate server: true when the binary
 * is missing (or an error under AMPLIFIER_REQUIRE_TOOLS=1, as in CI).
 */
export function skipWithoutRestate(): boolean {
  return skipUnless(
    findRestateServerBinary() !== undefined,
    `the restate-server binary for ${process.platform}-${process.arch}`,
    'optional dependency @restatedev/restate-server not installed',
  );
}

export interface WorkerOptions {
  withGate?: boolean;
  maxIterations?: number;
}

export interface RunningWorker {
  url: string;
  pid: number;
  child: ReadyChild<{ url: string; port: number; pid: number }>;
}

export interface Cluster {
  restate: LocalRestate;
  llm: FakeLlmServer;
  gate: FakeLlmServer;
  balancer: Balancer;
  client: TurnClient;
  dir: string;
  logDir: string;
  /** Start a worker process (not yet behind the balancer). */
  spawnWorker(options?: WorkerOptions): Promise<RunningWorker>;
  /** Route turns to exactly these workers and (re-)register the balancer with Restate. */
  route(workers: readonly RunningWorker[]): Promise<void>;
  close(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'amplifier-durable-'));
  const logDir = path.join(dir, 'logs');
  const restate = await startLocalRestate({
    baseDir: path.join(dir, 'restate'),
    partitions: 2,
    // A killed worker's invocation is retried soon (the default waits 500 ms, doubling).
    env: {
      RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: '50ms',
      RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: '1s',
    },
    ...(process.env.DURABLE_DEBUG ? { onOutput: (chunk: string) => process.stderr.write(chunk) } : {}),
  });
  const llm = await FakeLlmServer.start();
  const gate = await FakeLlmServer.start();
  const balancer = await startBalancer([]);
  const workers: RunningWorker[] = [];
  let registered = false;
  return {
    restate,
    llm,
    gate,
    balancer,
    client: new TurnClient({ ingressUrl: restate.ingressUrl }),
    dir,
    logDir,
    async spawnWorker(options = {}) {
      const child = startReadyChild<{ url: string; port: number; pid: number }>(process.execPath, [
        WORKER,
        JSON.stringify({ llmUrl: llm.url, gateUrl: gate.url, logDir, ...options }),
      ]);
      const ready = await child.ready;
      const worker = { url: ready.url, pid: ready.pid, child };
      workers.push(worker);
      return worker;
    },
    async route(list) {
      balancer.setTargets(list.map((w) => w.url));
      if (!registered) {
        await registerDeployment(restate.adminUrl, balancer.url);
        registered = true;
      }
    },
    async close() {
      for (const worker of workers) await worker.child.kill('SIGKILL');
      await balancer.close();
      await restate.kill();
      await llm.close();
      await gate.close();
      if (!process.env.DURABLE_KEEP) await rm(dir, { recursive: true, force: true });
    },
  };
}

// Chat Completions answers, as SSE, for the fake LLM server.

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return sseEvent({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
}
const DONE = 'data: [DONE]\n\n';

function sse(pieces: string[]): FakeReply {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(pieces.join(''));
  };
}

/** The model answers with text. */
export function textReply(text: string): FakeReply {
  return sse([chunk({ role: 'assistant', content: '' }), chunk({ content: text }), chunk({}, 'stop'), DONE]);
}

/** The model calls the `gate` tool (`id` is the tool call id, so the step name and idempotency key). */
export function gateCall(id: string): FakeReply {
  return gateCalls([id]);
}

/** The model calls the `gate` tool once per id, all in one response. */
export function gateCalls(ids: readonly string[]): FakeReply {
  return sse([
    chunk({ role: 'assistant', content: null }),
    chunk({
      tool_calls: ids.map((id, index) => ({
        index,
        id,
        type: 'function',
        function: { name: 'gate', arguments: JSON.stringify({ step: id }) },
      })),
    }),
    chunk({}, 'tool_calls'),
    DONE,
  ]);
}

/** A reply the test releases by hand: `arrived` resolves when the request is in. */
export function heldReply(): {
  reply: FakeReply;
  arrived: Promise<void>;
  /** Resolves when the client went away before the reply (an aborted fetch, a killed worker). */
  abandoned: Promise<void>;
  release(reply: FakeReply): void;
} {
  let arrive: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let abandon: () => void = () => {};
  const abandoned = new Promise<void>((resolve) => {
    abandon = resolve;
  });
  let answer: ((reply: FakeReply) => void) | undefined;
  const released = new Promise<FakeReply>((resolve) => {
    answer = resolve;
  });
  return {
    arrived,
    abandoned,
    reply: async (request, response) => {
      response.on('close', () => {
        if (!response.writableFinished) abandon();
      });
      arrive();
      const reply = await released;
      if (!response.destroyed) await reply(request, response);
    },
    release: (reply) => answer?.(reply),
  };
}

/** Text of the gate's answer for a tool step. */
export function gateText(text: string): FakeReply {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end(text);
  };
}

/** The records hooks-logging wrote for a session (every worker's, in file order). */
export async function logRecords(
  logDir: string,
  sessionId: string,
): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(path.join(logDir, `${sessionId}.jsonl`), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { event: string; data: Record<string, unknown> });
}

/** How many records of `event` (and matching `where` in data) the log has. */
export function countOf(
  records: { event: string; data: Record<string, unknown> }[],
  event: string,
  where: Record<string, unknown> = {},
): number {
  return records.filter((r) => r.event === event && Object.entries(where).every(([k, v]) => r.data[k] === v))
    .length;
}

/** The provider calls the fake LLM server received (chat completions only). */
export function llmCalls(llm: FakeLlmServer): number {
  return llm.requests.filter((r) => r.url.includes('/chat/completions')).length;
}
