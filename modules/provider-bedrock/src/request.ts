/**
 * Amplifier's request as a Converse / ConverseStream input: messages
 * alternating user / assistant (tool results merged into one user turn, blank
 * text skipped), reasoning replayed untouched as the first assistant blocks,
 * tools and `toolChoice` (none: tools withheld, tool blocks of the history
 * sent as text, since Bedrock refuses them without a `toolConfig`),
 * `inferenceConfig`, thinking in `additionalModelRequestFields`, and
 * `cachePoint` blocks.
 */
import {
  type ChatRequest,
  type ImageSource,
  type Message,
  messageToolCalls,
  responseText,
  stringifyJson,
  type ToolCall,
} from '@amplifier/core';
import { toolBlocksText, toolResultText } from '@amplifier/provider-http';

type Json = Record<string, unknown>;

/** Thinking budget per `reasoning_effort` (Claude). `none` turns thinking off. */
export const EFFORT_BUDGETS: Readonly<Record<string, number>> = {
  minimal: 1024,
  low: 4096,
  medium: 16_000,
  high: 32_000,
  xhigh: 48_000,
  max: 64_000,
};

/** Tokens kept for the answer on top of Claude's thinking budget. */
const ANSWER_TOKENS = 4096;
const CACHE_POINT: Json = { cachePoint: { type: 'default' } };
const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);

/** What the body depends on besides the request. */
export interface BodyOptions {
  /** The model id sent (inference profile prefix applied). */
  modelId: string;
  family: 'claude' | 'nova' | 'other';
  maxTokens: number;
  /** The model's max output: the cap of `maxTokens`. */
  modelMaxOutput: number;
  temperature: number | undefined;
  topP: number | undefined;
  promptCaching: boolean;
  extendedThinking: boolean;
  thinkingBudget: number;
  additionalFields: Json;
  extraBody: Json;
}

function image(source: ImageSource): Json | undefined {
  if (source.type !== 'base64' || typeof source.data !== 'string') return undefined;
  const format = String(source.media_type ?? '')
    .replace(/^image\//, '')
    .replace('jpg', 'jpeg');
  if (!IMAGE_FORMATS.has(format)) return undefined;
  return { image: { format, source: { bytes: Buffer.from(source.data, 'base64') } } };
}

function toolResult(id: string, text: string, tools: boolean): Json {
  return tools
    ? { toolResult: { toolUseId: id, content: [{ text: text === '' ? '(no output)' : text }] } }
    : { text: `[tool result ${id}]\n${text}` };
}

function toolUse(call: ToolCall, tools: boolean): Json {
  return tools
    ? { toolUse: { toolUseId: call.id, name: call.name, input: call.arguments } }
    : { text: `[tool call ${call.name} ${call.id}] ${stringifyJson(call.arguments)}` };
}

function userBlocks(content: Message['content'], tools: boolean): Json[] {
  if (typeof content === 'string') return content.trim() === '' ? [] : [{ text: content }];
  const out: Json[] = [];
  for (const block of content) {
    if (block?.type === 'text' && block.text.trim() !== '') out.push({ text: block.text });
    else if (block?.type === 'image') {
      const converted = image(block.source);
      out.push(converted ?? { text: '[an image this API cannot take: only base64 png, jpeg, gif or webp]' });
    } else if (block?.type === 'tool_result') {
      out.push(toolResult(block.tool_call_id, toolResultText(block.output), tools));
    }
  }
  return out;
}

/**
 * An assistant turn: reasoning first and byte-for-byte (signed text, or the
 * redacted bytes; unsigned thinking from another provider cannot be verified
 * and is left out), then text, then one toolUse per call.
 */
function assistantBlocks(message: Message, tools: boolean): Json[] {
  const reasoning: Json[] = [];
  const rest: Json[] = [];
  const content =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content } as const]
      : message.content;
  for (const block of content) {
    if (block?.type === 'thinking' && typeof block.signature === 'string' && block.signature !== '') {
      reasoning.push({
        reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } },
      });
    } else if (block?.type === 'redacted_thinking' && block.data !== '') {
      reasoning.push({ reasoningContent: { redactedContent: Buffer.from(block.data, 'base64') } });
    } else if (block?.type === 'text' && block.text.trim() !== '') {
      rest.push({ text: block.text });
    }
  }
  for (const call of messageToolCalls(message)) rest.push(toolUse(call, tools));
  // Reasoning is only meaningful with what it led to; alone it is refused.
  return rest.length === 0 ? [] : [...reasoning, ...rest];
}

/**
 * Amplifier messages as Converse `{system, messages}`. System and developer
 * messages before the conversation are hoisted into `system`; later ones stay
 * in place as user text in `<system-reminder>`. Consecutive same-role turns
 * are merged, tool results first in a user turn.
 */
export function toConverseMessages(
  messages: readonly Message[],
  tools: boolean,
): { system: Json[]; messages: { role: 'user' | 'assistant'; content: Json[] }[] } {
  const system: Json[] = [];
  const out: { role: 'user' | 'assistant'; content: Json[] }[] = [];
  let started = false;
  const push = (role: 'user' | 'assistant', content: Json[]): void => {
    if (content.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) {
      if (role === 'assistant') {
        // A second assistant message of the same turn: its reasoning cannot lead, keep the rest.
        last.content.push(...content.filter((b) => b.reasoningContent === undefined));
      } else last.content.push(...content);
    } else out.push({ role, content: [...content] });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const body = responseText(message.content);
        if (body.trim() === '') break;
        if (!started) system.push({ text: body });
        else push('user', [{ text: `<system-reminder>\n${body}\n</system-reminder>` }]);
        break;
      }
      case 'assistant':
        started = true;
        push('assistant', assistantBlocks(message, tools));
        break;
      case 'tool':
      case 'function': {
        started = true;
        const text = typeof message.content === 'string' ? message.content : toolBlocksText(message.content);
        push('user', [toolResult(message.tool_call_id ?? '', text, tools)]);
        break;
      }
      default:
        started = true;
        push('user', userBlocks(message.content, tools));
    }
  }
  for (const message of out) {
    if (message.role === 'user') {
      message.content.sort((a, b) => Number(b.toolResult !== undefined) - Number(a.toolResult !== undefined));
    }
  }
  return { system, messages: out };
}

/** Whether this request thinks, and with what budget (Claude) or effort (Nova). */
export function thinkingOf(
  request: ChatRequest,
  options: Pick<BodyOptions, 'family' | 'extendedThinking' | 'thinkingBudget'>,
): { enabled: boolean; budget: number | null; effort: string | undefined } {
  const effort = request.reasoning_effort;
  if (effort === 'none' || options.family === 'other')
    return { enabled: false, budget: null, effort: undefined };
  if (!options.extendedThinking && effort === undefined)
    return { enabled: false, budget: null, effort: undefined };
  if (options.family === 'nova') return { enabled: true, budget: null, effort: effort ?? 'medium' };
  return {
    enabled: true,
    budget: (effort !== undefined ? EFFORT_BUDGETS[effort] : undefined) ?? options.thinkingBudget,
    effort,
  };
}

function toolChoice(choice: ChatRequest['tool_choice']): Json | undefined {
  if (choice === 'required') return { any: {} };
  if (typeof choice === 'object' && choice !== null && choice.type === 'tool')
    return { tool: { name: choice.name } };
  if (choice === 'auto') return { auto: {} };
  return undefined;
}

/** The Converse input (`modelId` included) for a request whose messages were already repaired. */
export function toConverseInput(
  request: ChatRequest,
  messages: readonly Message[],
  options: BodyOptions,
): Json {
  const tools = (request.tools ?? []).length > 0 && request.tool_choice !== 'none';
  const converted = toConverseMessages(messages, tools);
  const cache = options.promptCaching && options.family !== 'other';
  const body: Json = { modelId: options.modelId, messages: converted.messages };
  if (converted.system.length > 0)
    body.system = cache ? [...converted.system, CACHE_POINT] : converted.system;
  if (tools) {
    const specs: Json[] = request.tools!.map((tool) => ({
      toolSpec: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: { json: tool.parameters ?? { type: 'object', properties: {} } },
      },
    }));
    const choice = toolChoice(request.tool_choice);
    body.toolConfig = {
      tools: cache ? [...specs, CACHE_POINT] : specs,
      ...(choice && { toolChoice: choice }),
    };
  }
  const last = converted.messages.at(-1);
  if (cache && last?.role === 'user') last.content.push(CACHE_POINT);

  const thinking = thinkingOf(request, options);
  let maxTokens = Math.min(request.max_output_tokens ?? options.maxTokens, options.modelMaxOutput);
  const fields: Json = { ...options.additionalFields };
  let temperature = request.temperature ?? options.temperature;
  let topP = request.top_p ?? options.topP;
  if (thinking.enabled && thinking.budget !== null) {
    // The budget must stay below maxTokens; temperature and topP are not allowed with thinking.
    maxTokens = Math.min(Math.max(maxTokens, thinking.budget + ANSWER_TOKENS), options.modelMaxOutput);
    const budget = Math.max(1024, Math.min(thinking.budget, maxTokens - ANSWER_TOKENS));
    fields.thinking = { type: 'enabled', budget_tokens: budget };
    temperature = undefined;
    topP = undefined;
  } else if (thinking.enabled && thinking.effort !== undefined) {
    const effort =
      thinking.effort === 'minimal'
        ? 'low'
        : ['xhigh', 'max'].includes(thinking.effort)
          ? 'high'
          : thinking.effort;
    fields.reasoningConfig = { type: 'enabled', maxReasoningEffort: effort };
  }
  body.inferenceConfig = {
    maxTokens,
    ...(temperature !== undefined && { temperature }),
    ...(topP !== undefined && { topP }),
    ...(request.stop !== undefined && request.stop.length > 0 && { stopSequences: request.stop }),
  };
  if (Object.keys(fields).length > 0) body.additionalModelRequestFields = fields;
  return { ...body, ...options.extraBody };
}
