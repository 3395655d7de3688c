/**
 * The missing-tool-result repair every provider runs before a call: LLM APIs
 * reject a conversation in which an assistant tool call has no result, and a
 * result can go missing (a crash between the call and its result, a context
 * edited by hand). Instead of failing the whole session, the provider sends a
 * synthetic error result that tells the model what happened.
 */
import { type Message, messageToolCalls } from '@amplifier/core';

/** One tool call that had no result and got a synthetic one. */
export interface ToolSequenceRepair {
  tool_call_id: string;
  tool_name: string;
}

/** What `repairToolSequence` returns. */
export interface ToolSequenceRepairResult {
  /** The repaired messages: the input array itself (never modified) when nothing was missing. */
  messages: Message[];
  /** The calls that got a synthetic result, in conversation order. */
  repairs: ToolSequenceRepair[];
  /** Synthetic assistant messages inserted between a repaired call and the user message after it. */
  synthetic_assistant_count: number;
}

/** The text of the assistant message that closes an interrupted tool round before a user message. */
export const TOOL_SEQUENCE_INTERRUPTED_TEXT =
  'The previous tool calls were interrupted due to a session error. This was automatically repaired.';

/** The synthetic result of a call whose result is missing (the reference's wording). */
export function missingToolResultText(toolName: string, toolCallId: string): string {
  return (
    '[SYSTEM ERROR: Tool result missing from conversation history]\n\n' +
    `Tool: ${toolName}\nCall ID: ${toolCallId}\n\n` +
    'This indicates the tool result was lost after execution.\n' +
    'Likely causes: context compaction bug, message parsing error, or state corruption.\n\n' +
    'The tool may have executed successfully, but the result was lost.\n' +
    'Please acknowledge this error and offer to retry the operation.'
  );
}

/** The calls of an assistant message (core's `messageToolCalls`: each id once), as repairs. */
function callsOf(message: Message): ToolSequenceRepair[] {
  return messageToolCalls(message).map(({ id, name }) => ({
    tool_call_id: id,
    tool_name: typeof name === 'string' ? name : 'unknown',
  }));
}

/** Ids answered anywhere: `tool` messages and `tool_result` blocks. */
function answeredIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (
      (message.role === 'tool' || message.role === 'function') &&
      typeof message.tool_call_id === 'string'
    ) {
      ids.add(message.tool_call_id);
    }
    if (Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block?.type === 'tool_result' && typeof block.tool_call_id === 'string')
          ids.add(block.tool_call_id);
      }
    }
  }
  return ids;
}

/** A user message a person wrote (not a tool result and not a `<system-reminder>`). */
function isRealUserMessage(message: Message | undefined): boolean {
  if (message?.role !== 'user' || message.tool_call_id) return false;
  return !(
    typeof message.content === 'string' && message.content.trimStart().startsWith('<system-reminder>')
  );
}

/**
 * Give every assistant tool call without a result a synthetic `tool` message
 * (the reference's "[SYSTEM ERROR: Tool result missing ...]" text, with the
 * call's id and tool name). The synthetic results go after the tool messages
 * that already follow the assistant message, so real results keep their place.
 * When a real user message comes next, a synthetic assistant message
 * (`TOOL_SEQUENCE_INTERRUPTED_TEXT`) closes the interrupted round first.
 * Never modifies its input; a call id repaired once is not repaired again.
 */
export function repairToolSequence(messages: readonly Message[]): ToolSequenceRepairResult {
  let answered: Set<string> | undefined;
  let out: Message[] | undefined;
  const repairs: ToolSequenceRepair[] = [];
  let syntheticAssistants = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    out?.push(message);
    if (message?.role !== 'assistant') continue;
    const calls = callsOf(message);
    if (calls.length === 0) continue;
    answered ??= answeredIds(messages);
    const missing = calls.filter((call) => !answered!.has(call.tool_call_id));
    if (missing.length === 0) continue;
    out ??= messages.slice(0, i + 1);
    // Keep the tool results that already follow the call, then add the missing ones.
    while (i + 1 < messages.length && messages[i + 1]?.role === 'tool') out.push(messages[++i]!);
    for (const call of missing) {
      answered.add(call.tool_call_id);
      repairs.push(call);
      out.push({
        role: 'tool',
        tool_call_id: call.tool_call_id,
        name: call.tool_name,
        content: missingToolResultText(call.tool_name, call.tool_call_id),
        metadata: { synthetic: true, source: 'tool_sequence_repair' },
      });
    }
    if (isRealUserMessage(messages[i + 1])) {
      out.push({
        role: 'assistant',
        content: TOOL_SEQUENCE_INTERRUPTED_TEXT,
        metadata: { synthetic: true, source: 'tool_sequence_repair' },
      });
      syntheticAssistants++;
    }
  }
  return {
    messages: out ?? (messages as Message[]),
    repairs,
    synthetic_assistant_count: syntheticAssistants,
  };
}
