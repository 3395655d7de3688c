/**
 * Structured output for `session.execute(prompt, { output })`, provider
 * neutral: the turn gets a `final_answer` tool whose input is the output
 * schema (defineTool: typed, validated, issues back to the model); the value
 * of its last valid call is the turn's result. A turn that ends without one
 * gets one repair turn; then `StructuredOutputError`.
 */
import type { Tool } from './contracts.js';
import { defineTool, type StandardSchemaV1, type ToolInputOf } from './define-tool.js';
import { AmplifierError } from './errors.js';
import type { JSONSchema } from './messages.js';

/** The name of the tool the model answers with. */
export const FINAL_ANSWER_TOOL = 'final_answer';

/** A turn with `output` ended, after its repair turn, without a valid answer. */
export class StructuredOutputError extends AmplifierError {
  /** The text the last turn ended with. */
  readonly text: string;
  /** Turns run (the first and the repair). */
  readonly attempts: number;
  constructor(text: string, attempts: number) {
    super(
      'OUTPUT_INVALID',
      `The model gave no valid answer through ${FINAL_ANSWER_TOOL} in ${attempts} turns; it ended with: ${text.slice(0, 200)}`,
    );
    this.text = text;
    this.attempts = attempts;
  }
}

const INSTRUCTION = `When you have the answer, call the ${FINAL_ANSWER_TOOL} tool with it: its input is the answer. Do not write the answer as text.`;
const REPAIR = `You did not give the answer through the ${FINAL_ANSWER_TOOL} tool. Call ${FINAL_ANSWER_TOOL} now with the answer.`;

/**
 * Run `turn` with a `final_answer` tool mounted in `tools` for `output`, one
 * repair turn when no valid answer came, and return the answer.
 */
export async function runForOutput<S extends StandardSchemaV1 | JSONSchema>(
  tools: Map<string, Tool>,
  prompt: string,
  output: S,
  turn: (prompt: string) => Promise<string>,
): Promise<ToolInputOf<S>> {
  if (tools.has(FINAL_ANSWER_TOOL)) {
    throw new AmplifierError(
      'SESSION_INVALID',
      `A tool named '${FINAL_ANSWER_TOOL}' is mounted: execute with output needs that name for the answer; rename the tool`,
    );
  }
  let answer: { value: ToolInputOf<S> } | undefined;
  const tool = defineTool({
    name: FINAL_ANSWER_TOOL,
    description: 'Gives the final answer of this turn, in the shape asked for.',
    input: output,
    execute: (value) => {
      answer = { value };
      return 'Answer recorded.';
    },
  });
  tools.set(FINAL_ANSWER_TOOL, tool);
  try {
    let text = await turn(`${prompt}\n\n${INSTRUCTION}`);
    if (answer === undefined) text = await turn(REPAIR);
    if (answer === undefined) throw new StructuredOutputError(text, 2);
    return answer.value;
  } finally {
    if (tools.get(FINAL_ANSWER_TOOL) === tool) tools.delete(FINAL_ANSWER_TOOL);
  }
}
