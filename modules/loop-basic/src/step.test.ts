/**
 * The execution-step seam (core's `session.step`): every provider call and
 * every tool call goes through the registered runner with a name that is the
 * same on a replay, and a runner that answers from its journal replays a turn
 * without calling the provider or the tools again.
 */
import { STEP_CAPABILITY, type StepInfo, type StepRunner } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { calls, FREE_PROFILE, harness, TestTool, text } from './__fixtures__/harness.js';

/** A durable engine in miniature: runs each step once, then answers it from the journal. */
class Journal {
  readonly results = new Map<string, unknown>();
  readonly seen: { name: string; info: StepInfo; replayed: boolean }[] = [];
  readonly runner: StepRunner = async <T>(
    name: string,
    run: () => Promise<T>,
    info: StepInfo,
  ): Promise<T> => {
    if (this.results.has(name)) {
      this.seen.push({ name, info, replayed: true });
      return structuredClone(this.results.get(name)) as T;
    }
    this.seen.push({ name, info, replayed: false });
    const value = await run();
    this.results.set(name, structuredClone(value));
    return value;
  };
}

function tools() {
  const keys: (string | undefined)[] = [];
  const echo = new TestTool({
    name: 'echo',
    profile: FREE_PROFILE,
    behave: (input, options) => {
      keys.push(options.idempotencyKey);
      return { success: true, output: `echo ${String(input.text)}` };
    },
  });
  return { echo, keys };
}

const script = [calls(['echo', { text: 'a' }, 'call_a'], ['echo', { text: 'b' }, 'call_b']), text('done')];

describe('the execution-step seam (session.step)', () => {
  it('runs each provider call and each tool call through the runner, named stably, tools given their idempotency key', async () => {
    const journal = new Journal();
    const { echo, keys } = tools();
    const h = harness(script, { tools: [echo] });
    h.coordinator.registerCapability(STEP_CAPABILITY, journal.runner);
    expect(await h.run()).toBe('done');
    expect(journal.seen.map((s) => s.name).sort()).toEqual(['llm:0', 'llm:1', 'tool:call_a', 'tool:call_b']);
    expect(journal.seen.find((s) => s.name === 'llm:0')!.info).toEqual({
      kind: 'provider',
      target: 'scripted',
      iteration: 0,
    });
    expect(journal.seen.find((s) => s.name === 'tool:call_b')!.info).toEqual({
      kind: 'tool',
      target: 'echo',
      // The tools of a response belong to the model call that asked for them.
      iteration: 0,
      tool_call_id: 'call_b',
    });
    expect(keys.sort()).toEqual(['call_a', 'call_b']);
  });

  it('a replay answered from the journal calls neither the provider nor the tools, and ends the same', async () => {
    const journal = new Journal();
    const first = tools();
    const original = harness(script, { tools: [first.echo] });
    original.coordinator.registerCapability(STEP_CAPABILITY, journal.runner);
    const answer = await original.run('go');

    // Another worker: a fresh session, the same journal.
    const again = tools();
    const replay = harness([new Error('the provider must not be called on replay')], { tools: [again.echo] });
    replay.coordinator.registerCapability(STEP_CAPABILITY, journal.runner);
    expect(await replay.run('go')).toBe(answer);
    expect(replay.provider.requests).toHaveLength(0);
    expect(again.echo.inputs).toHaveLength(0);
    expect(
      journal.seen
        .filter((s) => s.replayed)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['llm:0', 'llm:1', 'tool:call_a', 'tool:call_b']);
    // The context is rebuilt the same way: same messages, same tool results.
    expect(replay.context.messages).toEqual(original.context.messages);
  });

  it('without the capability, calls run directly (the identity), and tools still get their idempotency key', async () => {
    const { echo, keys } = tools();
    const h = harness(script, { tools: [echo] });
    expect(await h.run()).toBe('done');
    expect(h.provider.requests).toHaveLength(2);
    expect(keys.sort()).toEqual(['call_a', 'call_b']);
  });
});
