/**
 * Tools from core's defineTool through the loop: the model sees the zod
 * schema's JSON Schema, calls run with zod's output, and input zod refuses
 * (also what the JSON Schema cannot express) comes back to the model as a
 * ValidationError result naming the path, with the tool not run.
 */
import { defineTool } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { calls, harness, text, toolMessages } from './__fixtures__/harness.js';

function transfer(log: unknown[]) {
  return defineTool({
    name: 'transfer',
    description: 'Moves money between accounts.',
    input: z
      .object({ from: z.string(), to: z.string(), cents: z.number().int().positive() })
      .refine((t) => t.from !== t.to, { message: 'from and to must differ', path: ['to'] }),
    execute: (input) => {
      log.push(input);
      return `moved ${input.cents}`;
    },
  });
}

describe('typed tools in the loop', () => {
  it('offers the schema’s JSON Schema to the model and runs a valid call', async () => {
    const log: unknown[] = [];
    const h = harness([calls(['transfer', { from: 'a', to: 'b', cents: 5 }]), text('done')], {
      tools: [transfer(log)],
    });
    expect(await h.run()).toBe('done');
    expect(log).toEqual([{ from: 'a', to: 'b', cents: 5 }]);
    const offered = h.provider.requests[0]!.tools!.find((t) => t.name === 'transfer')!;
    expect(offered.parameters).toMatchObject({
      type: 'object',
      properties: { cents: { type: 'integer', exclusiveMinimum: 0 } },
      required: ['from', 'to', 'cents'],
    });
    expect(toolMessages(h.context)[0]![1]).toBe('moved 5');
  });

  it('sends what only the schema library can check back to the model as what to fix', async () => {
    const log: unknown[] = [];
    const h = harness([calls(['transfer', { from: 'a', to: 'a', cents: 5 }]), text('sorry')], {
      tools: [transfer(log)],
    });
    await h.run();
    expect(log).toEqual([]);
    const content = toolMessages(h.context)[0]![1];
    expect(content).toContain("invalid input for tool 'transfer': to: from and to must differ");
    expect(content).toContain('fix the arguments and call it again');
    const post = h.recorder.getEvents('tool:post')[0]![1] as { result: { error: { type: string } } };
    expect(post.result.error.type).toBe('ValidationError');
  });

  it('refuses input the JSON Schema already rules out before the tool, as for any tool', async () => {
    const log: unknown[] = [];
    const h = harness([calls(['transfer', { from: 'a', to: 'b', cents: -1 }]), text('sorry')], {
      tools: [transfer(log)],
    });
    await h.run();
    expect(log).toEqual([]);
    expect(toolMessages(h.context)[0]![1]).toMatch(/invalid input for tool 'transfer': cents/);
  });

  it('offers a tool that opts into strict mode as strict, and others without the flag', async () => {
    const strict = defineTool({
      name: 'pick',
      description: 'Picks.',
      input: z.object({ n: z.number() }),
      strict: true,
      execute: ({ n }) => n,
    });
    const h = harness([text('ok')], { tools: [strict, transfer([])] });
    await h.run();
    const offered = h.provider.requests[0]!.tools!;
    expect(offered.find((t) => t.name === 'pick')).toMatchObject({ strict: true });
    expect(offered.find((t) => t.name === 'transfer')).not.toHaveProperty('strict');
  });
});
