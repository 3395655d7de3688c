/**
 * A turn as the AI SDK's UI message stream (protocol v1): the chunks `useChat`,
 * `readUIMessageStream` and `DefaultChatTransport` read, so a chat UI built on
 * the AI SDK renders a turn's text, reasoning, tool calls and their results
 * with no glue code. The turn's items carry no block start/end and no tool
 * input deltas: the parts are opened and closed here, one step per model call.
 */
import type {
  TurnEvent,
  TurnTextDelta,
  TurnThinkingDelta,
  TurnToolCall,
  TurnToolDenied,
  TurnToolError,
  TurnToolResult,
} from './turn-stream.js';

/** One chunk of the UI message stream: `type` and its fields, as the AI SDK's `UIMessageChunk`. */
export interface UIMessageChunk {
  type: string;
  [field: string]: unknown;
}

/** Options of `toUIMessageChunks`. */
export interface UIMessageStreamOptions {
  /** The id of the assistant message (`start.messageId`); default a random one. */
  messageId?: string;
  /**
   * The text a client sees for a failed turn or a provider error. Default: the
   * error's class name only ("The turn failed (RateLimitError)."), so server
   * details (paths, keys in messages) never reach a browser.
   */
  errorText?: (error: unknown) => string;
  /** Send the usage of each model call as `message-metadata` (default true). */
  usage?: boolean;
}

/** The default `errorText`: the class of the error, never its message. */
export function defaultErrorText(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  return `The turn failed (${name}).`;
}

type Part = { kind: 'text' | 'reasoning'; id: string };

/** The folding state of one turn: open parts, the step, the tool calls seen. */
class ChunkFolder {
  readonly #errorText: (error: unknown) => string;
  readonly #usage: boolean;
  #part: Part | undefined;
  #stepOpen = false;
  #stepRequest: string | undefined;
  #afterTools = false;
  #generated = 0;
  /** Ids of calls shown, and the ids (in order) of calls without an id of their own, by tool name. */
  readonly #calls = new Set<string>();
  readonly #pending = new Map<string, string[]>();

  constructor(options: UIMessageStreamOptions) {
    this.#errorText = options.errorText ?? defaultErrorText;
    this.#usage = options.usage !== false;
  }

  fold(event: TurnEvent, out: UIMessageChunk[]): void {
    switch (event.type) {
      case 'text_delta':
      case 'thinking_delta':
        this.#delta(event, out);
        return;
      case 'tool_call':
        this.#toolCall(event, out);
        return;
      case 'tool_result':
        this.#toolResult(event, out);
        return;
      case 'tool_error':
        this.#toolError(event, out);
        return;
      case 'tool_denied':
        this.#toolDenied(event, out);
        return;
      case 'usage':
        if (this.#afterTools) this.#newStep(undefined, out);
        this.#closePart(out);
        if (this.#usage) out.push({ type: 'message-metadata', messageMetadata: { usage: event.usage } });
        return;
      case 'provider_error':
      case 'stream_aborted':
        this.#closePart(out);
        out.push({ type: 'error', errorText: this.#errorText(errorOf(event.error)) });
        return;
      case 'finish':
        this.#closePart(out);
        if (this.#stepOpen) out.push({ type: 'finish-step' });
        this.#stepOpen = false;
        out.push({ type: 'finish', finishReason: 'stop' });
        return;
      default:
        return; // progress items a chat UI has no part for
    }
  }

  /** The turn failed (or was cancelled): close what is open and end the message. */
  fail(error: unknown, out: UIMessageChunk[]): void {
    this.#closePart(out);
    if (this.#stepOpen) out.push({ type: 'finish-step' });
    this.#stepOpen = false;
    const cancelled = error instanceof Error && error.name === 'CancelledError';
    if (!cancelled) out.push({ type: 'error', errorText: this.#errorText(error) });
    out.push({ type: 'finish', finishReason: cancelled ? 'interrupted' : 'error' });
  }

  #delta(event: TurnTextDelta | TurnThinkingDelta, out: UIMessageChunk[]): void {
    if (event.text === '') return;
    const otherCall = this.#stepRequest !== undefined && event.request_id !== this.#stepRequest;
    if (!this.#stepOpen || this.#afterTools || otherCall) this.#newStep(event.request_id, out);
    this.#stepRequest = event.request_id;
    const kind = event.type === 'text_delta' ? 'text' : 'reasoning';
    const id = `${event.request_id}:${event.block_index}`;
    if (this.#part?.id !== id || this.#part.kind !== kind) {
      this.#closePart(out);
      this.#part = { kind, id };
      out.push({ type: `${kind}-start`, id });
    }
    out.push({ type: `${kind}-delta`, id, delta: event.text });
  }

  #toolCall(event: TurnToolCall, out: UIMessageChunk[]): void {
    this.#ensureStep(out);
    this.#closePart(out);
    const toolCallId = this.#callId(event.tool_call_id, event.tool_name);
    this.#calls.add(toolCallId);
    const { tool_name: toolName } = event;
    out.push({ type: 'tool-input-start', toolCallId, toolName, dynamic: true });
    out.push({ type: 'tool-input-available', toolCallId, toolName, input: event.tool_input, dynamic: true });
  }

  #toolResult(event: TurnToolResult, out: UIMessageChunk[]): void {
    this.#ensureStep(out);
    this.#closePart(out);
    this.#afterTools = true;
    const toolCallId = this.#knownCall(event.tool_call_id, event.tool_name);
    if (toolCallId === undefined) return; // a result of a call this stream never showed: nothing to attach it to
    const result = event.result;
    if (result?.success === false) {
      const message = result.error?.message;
      out.push({ type: 'tool-output-error', toolCallId, errorText: message ?? 'The tool failed.' });
    } else {
      out.push({ type: 'tool-output-available', toolCallId, output: result?.output ?? null, dynamic: true });
    }
  }

  #toolError(event: TurnToolError, out: UIMessageChunk[]): void {
    this.#ensureStep(out);
    this.#closePart(out);
    this.#afterTools = true;
    const known = this.#knownCall(event.tool_call_id, event.tool_name);
    const errorText = event.error.msg;
    if (known !== undefined) {
      out.push({ type: 'tool-output-error', toolCallId: known, errorText });
      return;
    }
    // Refused before it ran (unknown tool, invalid input): the client needs the call first.
    const toolCallId = this.#callId(event.tool_call_id, event.tool_name, false);
    const { tool_name: toolName } = event;
    out.push({ type: 'tool-input-start', toolCallId, toolName, dynamic: true });
    out.push({ type: 'tool-input-error', toolCallId, toolName, input: {}, errorText, dynamic: true });
  }

  #toolDenied(event: TurnToolDenied, out: UIMessageChunk[]): void {
    this.#ensureStep(out);
    this.#closePart(out);
    this.#afterTools = true;
    let toolCallId = this.#knownCall(event.tool_call_id, event.tool_name);
    if (toolCallId === undefined) {
      toolCallId = this.#callId(event.tool_call_id, event.tool_name, false);
      const { tool_name: toolName } = event;
      out.push({ type: 'tool-input-start', toolCallId, toolName, dynamic: true });
      out.push({
        type: 'tool-input-available',
        toolCallId,
        toolName,
        input: event.tool_input,
        dynamic: true,
      });
    }
    out.push({ type: 'tool-output-denied', toolCallId });
  }

  /** A call's id: its own, else a generated one remembered for its result (`pending`). */
  #callId(own: string | undefined, tool: string, pending = true): string {
    if (own !== undefined && own !== '') return own;
    const id = `call_${++this.#generated}`;
    if (pending) this.#pending.set(tool, [...(this.#pending.get(tool) ?? []), id]);
    return id;
  }

  /** The id of a call shown before: by its id, else the oldest shown call of that tool without one. */
  #knownCall(own: string | undefined, tool: string): string | undefined {
    if (own !== undefined && own !== '') return this.#calls.has(own) ? own : undefined;
    const queue = this.#pending.get(tool);
    return queue?.shift();
  }

  #ensureStep(out: UIMessageChunk[]): void {
    if (!this.#stepOpen) this.#newStep(undefined, out);
  }

  #newStep(request: string | undefined, out: UIMessageChunk[]): void {
    this.#closePart(out);
    if (this.#stepOpen) out.push({ type: 'finish-step' });
    out.push({ type: 'start-step' });
    this.#stepOpen = true;
    this.#stepRequest = request;
    this.#afterTools = false;
  }

  #closePart(out: UIMessageChunk[]): void {
    if (this.#part === undefined) return;
    out.push({ type: `${this.#part.kind}-end`, id: this.#part.id });
    this.#part = undefined;
  }
}

function errorOf(info: { type: string; msg: string }): Error {
  const error = new Error(info.msg);
  error.name = info.type;
  return error;
}

/**
 * The UI message stream of a turn: `start`, then a step per model call with
 * its text, reasoning and tool parts, then `finish` (`stop`; `error` or
 * `interrupted` when the turn failed or was cancelled). Never throws: a failed
 * turn ends the message with an `error` chunk whose text `errorText` chooses.
 * Give it `streamTurn(session, prompt, { progress: true })` to also show calls
 * a hook denied (`tool-output-denied`).
 */
export async function* toUIMessageChunks(
  events: AsyncIterable<TurnEvent>,
  options: UIMessageStreamOptions = {},
): AsyncGenerator<UIMessageChunk, void, undefined> {
  const folder = new ChunkFolder(options);
  yield { type: 'start', messageId: options.messageId ?? `msg_${crypto.randomUUID()}` };
  const out: UIMessageChunk[] = [];
  try {
    for await (const event of events) {
      folder.fold(event, out);
      yield* out.splice(0);
    }
  } catch (error) {
    folder.fail(error, out);
    yield* out.splice(0);
  }
}
