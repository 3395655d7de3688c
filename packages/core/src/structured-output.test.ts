/**
 * session.execute(prompt, { output }): the answer comes through a final_answer
 * tool mounted for the turn, typed from the schema and validated; one repair
 * turn when the model did not answer; then StructuredOutputError.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { makeSession } from './__fixtures__/sessions.js';
import type { OrchestratorRun } from './contracts.js';
import { AmplifierError } from './errors.js';
import type { ToolResult } from './results.js';
import { FINAL_ANSWER_TOOL, StructuredOutputError } from './structured-output.js';

const person = z.object({ name: z.string(), age: z.number().int().nonnegative() });

/** A model that answers each turn with the next of `calls` (undefined: text only). */
function scripted(calls: (Record<string, unknown> | undefined)[]) {
  const prompts: string[] = [];
  const results: ToolResult[] = [];
  const turn = async (prompt: string, run: OrchestratorRun): Promise<string> => {
    prompts.push(prompt);
    const input = calls.shift();
    if (input === undefined) return 'Ada is 36.';
    const result = await run.tools.get(FINAL_ANSWER_TOOL)!.execute(input);
    results.push(result);
    return 'done';
  };
  return { prompts, results, turn };
}

describe('execute with output', () => {
  it('returns the validated, typed value of final_answer and removes the tool after the turn', async () => {
    const { session, orchestrator } = makeSession();
    const model = scripted([{ name: 'Ada', age: 36 }]);
    orchestrator.turn = model.turn;
    const answer = await session.execute('Who is Ada?', { output: person });
    expectTypeOf(answer).toEqualTypeOf<{ name: string; age: number }>();
    expect(answer).toEqual({ name: 'Ada', age: 36 });
    expect(model.prompts[0]).toMatch(/^Who is Ada\?\n\nWhen you have the answer, call the final_answer tool/);
    expect(session.coordinator.get('tools').has(FINAL_ANSWER_TOOL)).toBe(false);
    // Plain turns are unchanged.
    orchestrator.turn = async (prompt) => `echo: ${prompt}`;
    const text = await session.execute('hi');
    expectTypeOf(text).toEqualTypeOf<string>();
    expect(text).toBe('echo: hi');
  });

  it('sends an invalid answer back to the model as what to fix, and takes the corrected one', async () => {
    const { session, orchestrator } = makeSession();
    const results: ToolResult[] = [];
    orchestrator.turn = async (_prompt, run) => {
      const tool = run.tools.get(FINAL_ANSWER_TOOL)!;
      results.push(await tool.execute({ name: 'Ada', age: -1 }));
      results.push(await tool.execute({ name: 'Ada', age: 36 }));
      return 'done';
    };
    expect(await session.execute('Who?', { output: person })).toEqual({ name: 'Ada', age: 36 });
    expect(results[0]).toMatchObject({ success: false, error: { type: 'ValidationError' } });
    expect(results[0]!.error?.message).toContain("invalid input for tool 'final_answer': age:");
  });

  it('runs one repair turn when the model answered in text, then gives up with the text', async () => {
    const { session, orchestrator } = makeSession();
    const repaired = scripted([undefined, { name: 'Ada', age: 36 }]);
    orchestrator.turn = repaired.turn;
    expect(await session.execute('Who?', { output: person })).toEqual({ name: 'Ada', age: 36 });
    expect(repaired.prompts[1]).toMatch(/did not give the answer through the final_answer tool/);

    const never = scripted([undefined, undefined, undefined]);
    orchestrator.turn = never.turn;
    const error = await session.execute('Who?', { output: person }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(AmplifierError.is(error, 'OUTPUT_INVALID')).toBe(true);
    expect(error).toMatchObject({ text: 'Ada is 36.', attempts: 2 });
    expect(never.prompts).toHaveLength(2);
    expect(session.coordinator.get('tools').has(FINAL_ANSWER_TOOL)).toBe(false);
  });

  it('types a JSON Schema output with FromSchema', async () => {
    const { session, orchestrator } = makeSession();
    orchestrator.turn = scripted([{ city: 'Oslo' }]).turn;
    const answer = await session.execute('Where?', {
      output: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    expectTypeOf(answer).toEqualTypeOf<{ city: string }>();
    expect(answer).toEqual({ city: 'Oslo' });
  });

  it('refuses when a mounted tool already has the name, and leaves that tool alone', async () => {
    const { session, orchestrator } = makeSession();
    await session.initialize();
    const mine = { name: FINAL_ANSWER_TOOL, description: 'mine', execute: async () => ({ success: true }) };
    session.coordinator.mount('tools', mine);
    orchestrator.turn = scripted([{ name: 'Ada', age: 1 }]).turn;
    await expect(session.execute('Who?', { output: person })).rejects.toMatchObject({
      code: 'SESSION_INVALID',
    });
    expect(session.coordinator.get('tools').get(FINAL_ANSWER_TOOL)).toBe(mine);
    expect(orchestrator.runs).toHaveLength(0);
  });

  it('refuses an output schema that is not an object before running a turn', async () => {
    const { session, orchestrator } = makeSession();
    await expect(session.execute('n?', { output: z.number() })).rejects.toThrow(/input is an object/);
    expect(orchestrator.runs).toHaveLength(0);
  });
});
