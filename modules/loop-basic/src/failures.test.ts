import { failureType } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { calls, harness, TestTool, text } from './__fixtures__/harness.js';

describe("the tool runner's failure types come from core's table (TOOL_FAILURES)", () => {
  it('tool:error reports the failure of an unknown tool and of a bad input by their table names', async () => {
    const strict = new TestTool({
      name: 'strict',
      schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    });
    const h = harness([calls(['nope'], ['strict', { n: 'x' }]), text('ok')], { tools: [strict] });
    await h.run();
    const types = h.recorder.getEvents('tool:error').map(([, data]) => (data.error as { type: string }).type);
    expect(types.sort()).toEqual([failureType('TOOL_INPUT_INVALID'), failureType('TOOL_NOT_FOUND')].sort());
    expect(strict.inputs).toHaveLength(0);
  });
});
