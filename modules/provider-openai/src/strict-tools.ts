/**
 * OpenAI's strict mode for the tools that ask for it (`tool.strict`, set by
 * `defineTool({ strict: true })`): the schema sent is the kit's strict rewrite
 * (every property required, optional ones nullable, objects closed), and the
 * nulls the model had to send for optional properties are taken back out of
 * the call's arguments, so the tool gets what its own schema describes. A
 * schema strict mode cannot express is sent as it is with `strict: false`
 * (and said once in the log).
 */
import type { ChatRequest, ChatResponse, JSONSchema, Logger, StreamEvent } from '@amplifier/core';
import { type StrictToolSchema, strictToolSchema } from '@amplifier/provider-http';

type RequestTool = NonNullable<ChatRequest['tools']>[number];

const EMPTY_OBJECT: JSONSchema = { type: 'object', properties: {} };
const rewrites = new WeakMap<object, StrictToolSchema>();
const warned = new WeakSet<object>();

/** The strict rewrite of a tool's parameters, computed once per schema object. */
function rewrite(parameters: JSONSchema): StrictToolSchema {
  let strict = rewrites.get(parameters);
  if (strict === undefined) {
    strict = strictToolSchema(parameters);
    rewrites.set(parameters, strict);
  }
  return strict;
}

/** What a tool's wire entry carries: its parameters and its `strict` flag. */
export function wireParameters(tool: RequestTool): { parameters: JSONSchema; strict: boolean } {
  const parameters = parametersOf(tool);
  if ((tool as { strict?: unknown }).strict !== true) return { parameters, strict: false };
  const strict = rewrite(parameters);
  return strict.ok ? { parameters: strict.schema, strict: true } : { parameters, strict: false };
}

function parametersOf(tool: RequestTool): JSONSchema {
  return Object.keys(tool.parameters ?? {}).length > 0 ? (tool.parameters as JSONSchema) : EMPTY_OBJECT;
}

/** The calls of `response` to strict tools, with the made-up nulls removed from their arguments. */
export function restoreStrictCalls(request: ChatRequest, response: ChatResponse): ChatResponse {
  const restorers = new Map<string, (args: Record<string, unknown>) => Record<string, unknown>>();
  for (const tool of request.tools ?? []) {
    if ((tool as { strict?: unknown }).strict !== true) continue;
    const strict = rewrite(parametersOf(tool));
    if (strict.ok) restorers.set(tool.name, strict.restore);
  }
  if (restorers.size === 0 || !response.tool_calls?.length) return response;
  return {
    ...response,
    tool_calls: response.tool_calls.map((call) => {
      const restore = restorers.get(call.name);
      return restore === undefined || call.invalid_arguments !== undefined
        ? call
        : { ...call, arguments: restore(call.arguments) };
    }),
  };
}

/** Say once per schema, in `logger`, which strict tools of `request` go without strict mode, and why. */
export function warnUnstrict(request: ChatRequest, logger: Logger): void {
  for (const tool of request.tools ?? []) {
    if ((tool as { strict?: unknown }).strict !== true) continue;
    const parameters = parametersOf(tool);
    const strict = rewrite(parameters);
    if (strict.ok || warned.has(parameters)) continue;
    warned.add(parameters);
    logger.warn(`provider-openai: tool '${tool.name}' is sent without strict mode: ${strict.problem}`);
  }
}

/** `restoreStrictCalls` on the response a stream ends with. */
export async function* restoreStrictStream(
  request: ChatRequest,
  events: AsyncIterable<StreamEvent>,
): AsyncGenerator<StreamEvent> {
  for await (const event of events) {
    yield event.type === 'message.end'
      ? { ...event, response: restoreStrictCalls(request, event.response) }
      : event;
  }
}
