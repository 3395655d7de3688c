/**
 * Vercel AI SDK 7 as its docs recommend for an agent loop: `generateText` with
 * `tools` (zod input schema, `execute`) and `stopWhen: isStepCount(n)` so the
 * loop continues after tool calls. The model implements the SDK's own
 * `LanguageModelV4` interface from `@ai-sdk/provider` (the same shape as
 * `MockLanguageModelV4` in `ai/test`, without its per-call recording).
 */
import type { LanguageModelV4, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, isStepCount, tool } from 'ai';
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

const usage: LanguageModelV4GenerateResult['usage'] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A zero-latency LanguageModelV4 answering from the script. */
export function scriptedModel(script: Script): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'scripted',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate(): Promise<LanguageModelV4GenerateResult> {
      const ids = script.next();
      if (ids === undefined) {
        return {
          content: [{ type: 'text', text: FINAL_TEXT }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: ids.map((id) => ({
          type: 'tool-call' as const,
          toolCallId: id,
          toolName: TOOL_NAME,
          input: ECHO_ARGS_JSON,
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('the benchmark uses generateText only');
    },
  };
}

export async function createAdapter(): Promise<Adapter> {
  return {
    name: 'ai-sdk',
    async prepare(script) {
      const model = scriptedModel(script);
      const tools = {
        [TOOL_NAME]: tool({
          description: TOOL_DESCRIPTION,
          inputSchema: z.object({ text: z.string() }),
          execute: async ({ text }) => script.echo(text),
        }),
      };
      const stopWhen = isStepCount(script.steps + 1);
      return async () => (await generateText({ model, tools, prompt: PROMPT, stopWhen })).text;
    },
  };
}
