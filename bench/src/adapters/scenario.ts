/**
 * The one scenario every system runs in the headline comparison: a zero-latency
 * scripted model that asks for `toolsPerStep` calls of the same `echo` tool
 * with the same arguments, `steps` times, then answers with the same final
 * text. The script is O(1) per model call and records nothing, so the model
 * costs the same (next to nothing) under every framework.
 */
import { performance } from 'node:perf_hooks';

export const TOOL_NAME = 'echo';
export const TOOL_DESCRIPTION = 'Returns its text argument unchanged.';
export const ECHO_TEXT = 'hello';
export const ECHO_ARGS: Readonly<{ text: string }> = Object.freeze({ text: ECHO_TEXT });
export const ECHO_ARGS_JSON: string = JSON.stringify(ECHO_ARGS);
export const FINAL_TEXT = 'All done.';
export const PROMPT = 'Call echo until you are done, then say so.';

/** JSON Schema of the echo tool's input (zod adapters declare the same shape). */
export const ECHO_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
});

/** A conversation's script: `steps` model turns with tool calls, then the final text. */
export class Script {
  readonly steps: number;
  readonly toolsPerStep: number;
  /** Model calls answered so far. */
  turn = 0;
  /** Echo tool executions so far. */
  echoes = 0;

  constructor(steps: number, toolsPerStep: number) {
    this.steps = steps;
    this.toolsPerStep = toolsPerStep;
  }

  /** The tool-call ids of the next model turn, or undefined when the model should answer with FINAL_TEXT. */
  next(): string[] | undefined {
    const turn = this.turn++;
    if (turn >= this.steps) return undefined;
    const ids: string[] = [];
    for (let i = 0; i < this.toolsPerStep; i++) ids.push(`call_${turn}_${i}`);
    return ids;
  }

  /** The echo tool's body. */
  echo(text: string): string {
    this.echoes++;
    return text;
  }

  /** Throw unless the run did exactly the scripted work and ended with the final text. */
  check(finalText: string): void {
    const expected = this.steps * this.toolsPerStep;
    if (this.turn !== this.steps + 1 || this.echoes !== expected || finalText !== FINAL_TEXT) {
      throw new Error(
        `scenario not completed: ${this.turn} model calls (want ${this.steps + 1}), ${this.echoes} echoes (want ${expected}), final text ${JSON.stringify(finalText)}`,
      );
    }
  }
}

/** One system under test: prepares a fresh conversation and returns the function that runs it. */
export interface Adapter {
  readonly name: string;
  /** Build a fresh agent/session for `script` (not timed); the returned function runs the conversation (timed) and returns the final text. */
  prepare(script: Script): Promise<() => Promise<string>>;
  /** Anything to do after a run (not timed), e.g. a session's cleanup. */
  finish?(): Promise<void>;
}

/** Run `conversations` fresh conversations; µs per step over all of them (setup not timed). */
export async function measure(
  adapter: Adapter,
  steps: number,
  tools: number,
  conversations: number,
): Promise<number> {
  let total = 0;
  // No forced garbage collection here: it shrinks the heap, and the next samples pay to grow it again
  // (measured: the plain loop 1.8x and Amplifier about 3x slower per step); a running agent never sees that.
  for (let c = 0; c < conversations; c++) {
    const script = new Script(steps, tools);
    const run = await adapter.prepare(script);
    const start = performance.now();
    const text = await run();
    total += performance.now() - start;
    script.check(text);
    await adapter.finish?.();
  }
  return (total * 1000) / (steps * conversations);
}
