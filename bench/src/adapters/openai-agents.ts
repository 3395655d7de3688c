/**
 * OpenAI Agents SDK as its docs show: an `Agent` with a zod-typed `tool`, run by
 * a `Runner` with `maxTurns` raised to fit the conversation. The model is a
 * plain implementation of the SDK's `Model` interface (as the SDK's own test
 * stubs do). Tracing is disabled (`new Runner({ tracingDisabled: true })`),
 * as a user would for a local run without an OpenAI key: with tracing on, the
 * SDK would also try to export spans to OpenAI.
 */
import { Agent, type Model, type ModelResponse, Runner, tool, Usage } from '@openai/agents';
import { z } from 'zod';
import {
  type Adapter,
  ECHO_ARGS_JSON,
  FINAL_TEXT,
  PROMPT,
  type Script,
  TOOL_DESCRIPTION,
  TOOL_NAME,
} from './scenario.js';

/** A zero-latency `Model` answering from the script. */
export function scriptedModel(script: Script): Model {
  return {
    async getResponse(): Promise<ModelResponse> {
      const ids = script.next();
      if (ids === undefined) {
        return {
          usage: new Usage(),
          output: [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: FINAL_TEXT }],
            },
          ],
        };
      }
      return {
        usage: new Usage(),
        output: ids.map((id) => ({
          type: 'function_call' as const,
          callId: id,
          name: TOOL_NAME,
          status: 'completed' as const,
          arguments: ECHO_ARGS_JSON,
        })),
      };
    },
    getStreamedResponse() {
      throw new Error('the benchmark uses run() without streaming');
    },
  };
}

export async function createAdapter(): Promise<Adapter> {
  const runner = new Runner({ tracingDisabled: true });
  return {
    name: 'openai-agents',
    async prepare(script) {
      const echo = tool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        parameters: z.object({ text: z.string() }),
        execute: async ({ text }) => script.echo(text),
      });
      const agent = new Agent({ name: 'bench', model: scriptedModel(script), tools: [echo] });
      const maxTurns = script.steps + 2;
      return async () => String((await runner.run(agent, PROMPT, { maxTurns })).finalOutput ?? '');
    },
  };
}
