/**
 * The Messages API request body: messages and system prompt, tools and
 * tool_choice, extended thinking (budget from `reasoning_effort` or config,
 * or adaptive with `output_config.effort`), structured output through
 * `output_config.format`, limits, stop sequences and cache breakpoints.
 */
import type { ChatRequest, Message, ToolChoice } from '@amplifier/core';
import { addCacheBreakpoints, toWireMessages } from './convert.js';

type Json = Record<string, unknown>;

/** Thinking budget per `reasoning_effort` (with `thinking_type: enabled`). `none` turns thinking off. */
export const EFFORT_BUDGETS: Readonly<Record<string, number>> = {
  minimal: 1024,
  low: 4096,
  medium: 16_000,
  high: 32_000,
  xhigh: 48_000,
  max: 64_000,
};

/** Tokens kept for the answer on top of the thinking budget. */
const ANSWER_TOKENS = 4096;

export interface BodyOptions {
  model: string;
  stream: boolean;
  maxTokens: number | undefined;
  /** The model's max output: the default and the cap of `max_tokens`. */
  modelMaxOutput: number;
  temperature: number | undefined;
  topP: number | undefined;
  promptCaching: boolean;
  /** Extended thinking asked for by config or by the caller (`extended_thinking: true`). */
  extendedThinking: boolean;
  thinkingBudget: number;
  thinkingType: 'enabled' | 'adaptive';
  extraBody: Json;
}

/** Whether this request thinks, and with what budget (null for adaptive). */
export function thinkingOf(
  request: ChatRequest,
  options: Pick<BodyOptions, 'extendedThinking' | 'thinkingBudget' | 'thinkingType'>,
): { enabled: boolean; budget: number | null } {
  const effort = request.reasoning_effort;
  if (effort === 'none') return { enabled: false, budget: null };
  const enabled = options.extendedThinking || effort !== undefined;
  if (!enabled) return { enabled: false, budget: null };
  if (options.thinkingType === 'adaptive') return { enabled: true, budget: null };
  return {
    enabled: true,
    budget: (effort !== undefined ? EFFORT_BUDGETS[effort] : undefined) ?? options.thinkingBudget,
  };
}

function wireToolChoice(choice: ToolChoice): Json {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.name };
}

/** The Messages API body for `request` (its messages already repaired). */
export function toWireBody(request: ChatRequest, messages: readonly Message[], options: BodyOptions): Json {
  const { system, messages: wire } = toWireMessages(messages);
  const body: Json = { model: options.model, messages: wire };
  if (system.length > 0) body.system = system;
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      input_schema:
        Object.keys(tool.parameters ?? {}).length > 0 ? tool.parameters : { type: 'object', properties: {} },
    }));
  }
  if (request.tool_choice !== undefined) body.tool_choice = wireToolChoice(request.tool_choice);

  let maxTokens = request.max_output_tokens ?? options.maxTokens ?? options.modelMaxOutput;
  const outputConfig: Json = {};
  const thinking = thinkingOf(request, options);
  if (thinking.enabled && thinking.budget === null) {
    body.thinking = { type: 'adaptive' };
    if (request.reasoning_effort !== undefined) outputConfig.effort = request.reasoning_effort;
  } else if (thinking.enabled && thinking.budget !== null) {
    // The budget must stay below max_tokens, and temperature/top_p must be left to the API.
    maxTokens = Math.min(Math.max(maxTokens, thinking.budget + ANSWER_TOKENS), options.modelMaxOutput);
    const budget = Math.max(1024, Math.min(thinking.budget, maxTokens - ANSWER_TOKENS));
    body.thinking = { type: 'enabled', budget_tokens: budget };
  }
  if (!thinking.enabled) {
    const temperature = request.temperature ?? options.temperature;
    if (temperature !== undefined) body.temperature = temperature;
    const topP = request.top_p ?? options.topP;
    if (topP !== undefined) body.top_p = topP;
  }
  body.max_tokens = maxTokens;
  if (request.stop?.length) body.stop_sequences = request.stop;
  if (request.response_format?.type === 'json_schema') {
    outputConfig.format = { type: 'json_schema', schema: request.response_format.schema };
  }
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;
  if (options.stream) body.stream = true;
  if (options.promptCaching) addCacheBreakpoints(body);
  return { ...options.extraBody, ...body };
}
