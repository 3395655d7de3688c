/**
 * The streaming path goes through the step seam too: `streamTurn()` runs
 * the turn through loop-basic, whose provider and tool calls are steps, with
 * a provider that streams its answer (provider-openai over SSE). A second
 * session that answers every step from the first one's journal streams the
 * same finish without a request to the model or a tool run.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AmplifierSession, STEP_CAPABILITY, type StepRunner, silentLogger, type Tool } from '@amplifier/core';
import { FakeLlmServer } from '@amplifier/provider-http/testing';
import { streamTurn } from '@amplifier/server';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { gateCall, llmCalls, textReply } from './__fixtures__/cluster.js';

const baseDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let llm: FakeLlmServer;
beforeEach(async () => {
  llm = await FakeLlmServer.start();
});
afterEach(() => llm.close());

function journal(results: Map<string, unknown>, seen: string[]): StepRunner {
  return async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    seen.push(name);
    if (results.has(name)) return structuredClone(results.get(name)) as T;
    const value = await run();
    results.set(name, structuredClone(value));
    return value;
  };
}

async function session(runner: StepRunner, runs: string[]): Promise<AmplifierSession> {
  const s = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-openai',
          config: { api_key: 'sk-test', base_url: `${llm.url}/v1`, default_model: 'm' },
        },
      ],
    },
    { baseDir, logger: silentLogger },
  );
  await s.initialize();
  const gate: Tool = {
    name: 'gate',
    description: 'records its runs',
    inputSchema: { type: 'object' },
    execute: async (_input, options) => {
      runs.push(options?.idempotencyKey ?? '');
      return { success: true, output: 'gate output' };
    },
  };
  s.coordinator.mount('tools', gate, { name: 'gate' });
  s.coordinator.registerCapability(STEP_CAPABILITY, runner);
  return s;
}

it('streamTurn() runs provider and tool calls as steps, and replays them from a journal', async () => {
  llm.enqueue(gateCall('call_s'), textReply('streamed answer'));
  const results = new Map<string, unknown>();
  const seen: string[] = [];
  const runs: string[] = [];
  const first = await session(journal(results, seen), runs);
  const events: string[] = [];
  let finish = '';
  for await (const event of streamTurn(first, 'go')) {
    events.push(event.type);
    if (event.type === 'finish') finish = event.text;
  }
  await first.cleanup();
  expect(finish).toBe('streamed answer');
  expect(events).toContain('text_delta');
  expect(seen).toEqual(['llm:0', 'tool:call_s', 'llm:1']);
  expect(runs).toEqual(['call_s']);
  expect(llmCalls(llm)).toBe(2);

  const replayed: string[] = [];
  const again = await session(journal(results, replayed), runs);
  let replayedFinish = '';
  for await (const event of streamTurn(again, 'go')) if (event.type === 'finish') replayedFinish = event.text;
  await again.cleanup();
  expect(replayedFinish).toBe('streamed answer');
  expect(replayed).toEqual(['llm:0', 'tool:call_s', 'llm:1']);
  expect(runs).toEqual(['call_s']);
  expect(llmCalls(llm)).toBe(2);
});
