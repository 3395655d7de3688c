/**
 * Deep data from the model: arguments nested thousands of levels deep fail
 * the call with a clear message (the tool never runs, the turn goes on), and
 * the depth check itself is bounded whatever the value.
 */
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, type ToolCall } from '@amplifier/core';
import { depthOf, nestedValue } from '@amplifier/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calls, harness, TestTool, text, toolMessages } from './__fixtures__/harness.js';
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from './depth.js';

/** A response with one call to `echo` whose arguments are `args` (an object, or JSON text). */
function deepCall(args: unknown): Parameters<typeof harness>[0][number] {
  const call = { id: 'deep_1', name: 'echo', arguments: args } as unknown as ToolCall;
  // A function step: the harness would structuredClone a plain response (itself recursive).
  return () => ({ content: [], tool_calls: [call] });
}

const TOO_DEEP = `Error: the arguments of this call to 'echo' are nested deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays; the tool was not run. Send flatter arguments.`;

describe('arguments nested too deep', () => {
  for (const depth of [3_000, 100_000]) {
    for (const form of ['object', 'JSON text'] as const) {
      it(`${depth.toLocaleString('en-US')} levels (${form}): the call fails clearly, the tool never runs, the turn completes`, async () => {
        const deep = { payload: nestedValue(depth) };
        const args = form === 'object' ? deep : `{"payload":${'['.repeat(depth)}${']'.repeat(depth)}}`;
        const echo = new TestTool({
          name: 'echo',
          schema: { type: 'object', properties: { payload: {} }, additionalProperties: false },
        });
        const h = harness([deepCall(args), text('I will use flatter arguments')], { tools: [echo] });
        expect(await h.run()).toBe('I will use flatter arguments');
        expect(echo.inputs).toHaveLength(0);
        expect(toolMessages(h.context)).toEqual([['deep_1', TOO_DEEP]]);
        expect(h.recorder.getEvents('tool:error').map(([, data]) => data.error)).toEqual([
          {
            type: 'InvalidArguments',
            msg: `the arguments of this call to 'echo' are nested deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays`,
          },
        ]);
        expect(h.recorder.getEvents('tool:pre')).toEqual([]);
        // The history holds the call and its result, in order; the second request carried both.
        expect(h.context.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        expect(h.provider.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      });
    }
  }

  it('arguments exactly MAX_ARGUMENT_DEPTH deep run; one level more does not', async () => {
    const echo = new TestTool({ name: 'echo' });
    const fits = nestedValue(MAX_ARGUMENT_DEPTH - 1);
    const h = harness([deepCall({ fits }), deepCall({ over: nestedValue(MAX_ARGUMENT_DEPTH) }), text('ok')], {
      tools: [echo],
    });
    expect(await h.run()).toBe('ok');
    expect(echo.inputs).toEqual([{ fits }]);
    expect(toolMessages(h.context).map(([, content]) => content)).toEqual(['echo ok', TOO_DEEP]);
    expect(MAX_ARGUMENT_DEPTH).toBe(MAX_DATA_DEPTH - 3);
  });

  it('a tool:pre hook that rewrites the input into something too deep fails the call the same way', async () => {
    const echo = new TestTool({ name: 'echo' });
    const h = harness([calls(['echo', { x: 1 }]), text('ok')], { tools: [echo] });
    h.coordinator.hooks.register('tool:pre', (_event, data) => ({
      action: 'modify',
      data: { ...data, tool_input: { deep: nestedValue(5_000) } },
    }));
    expect(await h.run()).toBe('ok');
    expect(echo.inputs).toHaveLength(0);
    expect(toolMessages(h.context)[0]![1]).toBe(
      `Error: the input a tool:pre hook gave 'echo' is nested deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays; the tool was not run. Check the tool:pre hooks.`,
    );
  });

  it('deep output from a tool, or from a tool:post hook, reaches the model bounded (the marker), never a crash', async () => {
    const deepOut = new TestTool({
      name: 'deep_out',
      behave: () => ({ success: true, output: { tree: nestedValue(100_000) } }),
    });
    const plain = new TestTool({ name: 'plain' });
    const h = harness([calls(['deep_out'], ['plain']), text('ok')], { tools: [deepOut, plain] });
    h.coordinator.hooks.register('tool:post', (_event, data) =>
      data.tool_name === 'plain'
        ? { action: 'modify', data: { ...data, result: { replaced: nestedValue(100_000) } } }
        : undefined,
    );
    expect(await h.run()).toBe('ok');
    const contents = toolMessages(h.context).map(([, content]) => content);
    for (const content of contents) {
      expect(content).toContain(JSON.stringify(MAX_DEPTH_MARKER));
      expect(depthOf(JSON.parse(content))).toBe(MAX_DATA_DEPTH);
    }
  });
});

describe('nestedDeeperThan (random deep and wide values)', () => {
  const leaf = fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.boolean());
  const shallow = fc.oneof(
    leaf,
    fc.array(leaf, { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 4 }), leaf, { maxKeys: 4 }),
  );
  const value = fc
    .record({
      depth: fc.integer({ min: 0, max: 600 }),
      kinds: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
      siblings: fc.array(shallow, { maxLength: 3 }),
      wide: fc.array(shallow, { maxLength: 50 }),
      leaf: shallow,
    })
    .map(({ depth, kinds, siblings, wide, leaf: bottom }) => {
      let inner: unknown = bottom;
      for (let i = 0; i < depth; i++) {
        inner = kinds[i % kinds.length]
          ? [...siblings, inner]
          : { ...Object.fromEntries(siblings.entries()), next: inner };
      }
      return [...wide, inner];
    });

  it('is exactly "deeper than the limit", never throws, and is the same for any limit', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 700 }), (v, levels) => {
        const depth = depthOf(v);
        expect(nestedDeeperThan(v, levels)).toBe(depth > levels);
        expect(nestedDeeperThan(v, MAX_ARGUMENT_DEPTH)).toBe(depth > MAX_ARGUMENT_DEPTH);
      }),
      { numRuns: 200 },
    );
  });

  it('takes 100,000 levels and a cycle without a RangeError', () => {
    expect(nestedDeeperThan(nestedValue(100_000), MAX_ARGUMENT_DEPTH)).toBe(true);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(nestedDeeperThan(cyclic, MAX_ARGUMENT_DEPTH)).toBe(true);
    expect(nestedDeeperThan('text', 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
    expect(nestedDeeperThan({}, 1)).toBe(false);
  });
});
