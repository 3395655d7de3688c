import { AmplifierError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { calls, harness, TestTool, text } from './__fixtures__/harness.js';
import { failureType, TOOL_FAILURES } from './failures.js';

describe("the tool runner's failure types come from one table", () => {
  it("keeps Amplifier's `error.type` names, one per code", () => {
    expect(
      Object.fromEntries(Object.entries(TOOL_FAILURES.codes).map(([code, row]) => [code, row.name])),
    ).toEqual({
      TOOL_INVALID_ARGUMENTS: 'InvalidArguments',
      TOOL_NOT_FOUND: 'ToolNotFoundError',
      TOOL_INPUT_INVALID: 'ValidationError',
      TOOL_TIMED_OUT: 'TimeoutError',
      TOOL_PROFILE_INVALID: 'InvalidToolProfile',
      TOOL_RESULT_INVALID: 'InvalidToolResult',
    });
    // @ts-expect-error: not a failure of the table
    expect(() => failureType('TOOL_MISSING')).toThrow(TypeError);
  });

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

  it('a failure made as an error carries its code across JSON', () => {
    const error = TOOL_FAILURES.create('TOOL_NOT_FOUND', { message: "Tool 'nope' not found" });
    expect(AmplifierError.is(error)).toBe(true);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'TOOL_NOT_FOUND', name: 'ToolNotFoundError' });
  });
});
