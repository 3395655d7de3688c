/**
 * Messages both ways between Amplifier's envelope and Gemini's `contents`:
 * roles user/model, system text hoisted into `systemInstruction`, tool calls
 * as `functionCall` parts and their results as `functionResponse` parts (all
 * results of one model turn in one user content, in call order, matched by
 * name), thought signatures replayed on exactly the parts that carried them;
 * and Gemini's answers (whole or streamed) as a ChatResponse, with usage and
 * the finish reason, blocked answers and prompts as content-filter errors.
 */
import { randomBytes } from 'node:crypto';
import {
  type ChatResponse,
  type ContentBlock,
  createLLMError,
  type ImageSource,
  type LLMError,
  type Message,
  messageToolCalls,
  readToolCall,
  responseText,
  type StreamEvent,
  type ToolCall,
  type Usage,
} from '@amplifier/core';
import { type RequestContext, toolBlocksText, toolResultText } from '@amplifier/provider-http';

type Json = Record<string, unknown>;

/** Metadata key: per call id, its thought signature and whether the id came from the wire. */
export const CALLS_KEY = 'gemini:calls';
/** Metadata key: the model version that answered; marks a message as Gemini's (its signatures are replayed). */
export const MODEL_KEY = 'gemini:model_version';
/** Google's documented stand-in signature for calls the client cannot sign (history from elsewhere). */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** What is kept about one call of an answer, in `metadata['gemini:calls'][id]`. */
export interface CallState {
  /** The call's `thoughtSignature`, replayed on its `functionCall` part. */
  signature?: string;
  /** True when Gemini sent the id (sent back on the Gemini API); else it was made here. */
  wire_id?: boolean;
}

/** A text block that carries a thought signature (an extra field of the block, kept by whoever copies it). */
type SignedText = { type: 'text'; text: string; signature?: string };

export interface ContentsOptions {
  /** Vertex AI rejects `functionCall.id` / `functionResponse.id`. */
  vertex: boolean;
  /** Gemini 3: the first call of an unsigned model turn gets the stand-in signature. */
  signCalls: boolean;
}

function part(source: ImageSource): Json | undefined {
  if (source.type === 'base64' && typeof source.data === 'string') {
    return { inlineData: { mimeType: String(source.media_type ?? 'image/png'), data: source.data } };
  }
  if (source.type === 'url' && typeof source.url === 'string') {
    const media = (source as { media_type?: unknown }).media_type;
    const mimeType = typeof media === 'string' ? media : 'image/jpeg';
    return { fileData: { mimeType, fileUri: source.url } };
  }
  return undefined;
}

/** The `response` object of a functionResponse: `{ result: <text> }` (Gemini wants a JSON object). */
function functionResponse(name: string, id: string | undefined, output: string): Json {
  return { functionResponse: { name, response: { result: output }, ...(id !== undefined && { id }) } };
}

function callStates(message: Message): Readonly<Record<string, CallState>> {
  const states = message.metadata?.[CALLS_KEY];
  return typeof states === 'object' && states !== null ? (states as Record<string, CallState>) : {};
}

/** A model turn's parts: thinking and text (signed ones replayed, from Gemini answers only), then the calls. */
function modelParts(message: Message, options: ContentsOptions): Json[] {
  const ours = typeof message.metadata?.[MODEL_KEY] === 'string';
  const out: Json[] = [];
  const content =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content } as const]
      : message.content;
  for (const block of content) {
    if (block?.type === 'thinking') {
      // Another provider's reasoning (and its signature) means nothing to Gemini.
      if (!ours) continue;
      const signature =
        typeof block.signature === 'string' && block.signature !== '' ? block.signature : undefined;
      out.push({ text: block.thinking, thought: true, ...(signature && { thoughtSignature: signature }) });
    } else if (block?.type === 'text') {
      const signature = ours ? (block as SignedText).signature : undefined;
      if (block.text === '' && signature === undefined) continue;
      out.push({ text: block.text, ...(typeof signature === 'string' && { thoughtSignature: signature }) });
    }
  }
  const states = callStates(message);
  let first = true;
  for (const call of messageToolCalls(message)) {
    const state = Object.hasOwn(states, call.id) ? states[call.id] : undefined;
    let signature = ours ? state?.signature : undefined;
    // Only the first of parallel calls is signed; an unsigned turn from elsewhere gets the stand-in.
    if (signature === undefined && first && options.signCalls && !turnSigned(message, states))
      signature = SKIP_SIGNATURE;
    const sendId = !options.vertex && state?.wire_id === true;
    out.push({
      functionCall: { name: call.name, args: call.arguments, ...(sendId && { id: call.id }) },
      ...(signature !== undefined && { thoughtSignature: signature }),
    });
    first = false;
  }
  return out;
}

/** Whether any call of a Gemini turn carries a signature. */
function turnSigned(message: Message, states: Readonly<Record<string, CallState>>): boolean {
  return (
    typeof message.metadata?.[MODEL_KEY] === 'string' &&
    Object.values(states).some((s) => typeof s?.signature === 'string')
  );
}

/** User-side parts: text, images, and tool results (as function responses). */
function userParts(content: Message['content'], names: CallNames): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const out: Json[] = [];
  for (const block of content) {
    if (block?.type === 'text' && block.text !== '') out.push({ text: block.text });
    else if (block?.type === 'image') {
      const converted = part(block.source);
      if (converted !== undefined) out.push(converted);
    } else if (block?.type === 'tool_result') {
      out.push(names.response(block.tool_call_id, undefined, toolResultText(block.output)));
    }
  }
  return out;
}

/** Names and order of the calls made so far, to answer them by name in call order. */
class CallNames {
  readonly #calls = new Map<string, { name: string; order: number; wireId: boolean }>();
  readonly #vertex: boolean;

  constructor(vertex: boolean) {
    this.#vertex = vertex;
  }

  add(message: Message): void {
    const states = callStates(message);
    messageToolCalls(message).forEach((call, order) => {
      const wireId = Object.hasOwn(states, call.id) && states[call.id]?.wire_id === true;
      this.#calls.set(call.id, { name: call.name, order, wireId });
    });
  }

  /** The call's position in its turn (unknown calls last). */
  order(id: string | undefined): number {
    return (id === undefined ? undefined : this.#calls.get(id)?.order) ?? Number.MAX_SAFE_INTEGER;
  }

  response(id: string, fallbackName: string | undefined, output: string): Json {
    const call = this.#calls.get(id);
    const name = call?.name ?? fallbackName ?? 'unknown_function';
    const sendId = !this.#vertex && call?.wireId === true;
    return { ...functionResponse(name, sendId ? id : undefined, output), _call: id };
  }
}

/**
 * Amplifier messages as `{systemInstruction, contents}`. System and developer
 * messages before the conversation starts go into `systemInstruction`; later
 * ones (hook injections) stay in place as user text in `<system-reminder>`.
 * Tool results become `functionResponse` parts named after their call;
 * consecutive same-role contents are merged, and the function responses of a
 * user content come first, in the order of their calls.
 */
export function toContents(
  messages: readonly Message[],
  options: ContentsOptions,
): { systemInstruction: Json | undefined; contents: Json[] } {
  const system: Json[] = [];
  const contents: { role: 'user' | 'model'; parts: Json[] }[] = [];
  const names = new CallNames(options.vertex);
  let started = false;
  const push = (role: 'user' | 'model', parts: Json[]): void => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts: [...parts] });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const body = responseText(message.content);
        if (body === '') break;
        if (!started) system.push({ text: body });
        else push('user', [{ text: `<system-reminder>\n${body}\n</system-reminder>` }]);
        break;
      }
      case 'assistant':
        started = true;
        names.add(message);
        push('model', modelParts(message, options));
        break;
      case 'tool':
      case 'function': {
        started = true;
        const output =
          typeof message.content === 'string' ? message.content : toolBlocksText(message.content);
        push('user', [names.response(message.tool_call_id ?? '', message.name, output)]);
        break;
      }
      default:
        started = true;
        push('user', userParts(message.content, names));
    }
  }
  for (const content of contents) {
    if (content.role !== 'user' || !content.parts.some((p) => '_call' in p)) continue;
    const rank = (p: Json): number =>
      '_call' in p ? names.order(p._call as string) : Number.MAX_SAFE_INTEGER;
    content.parts = content.parts
      .map((p, i) => ({ p, i }))
      .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
      .map(({ p }) => {
        if (!('_call' in p)) return p;
        const { _call, ...rest } = p;
        return rest;
      });
  }
  return {
    systemInstruction: system.length > 0 ? { parts: system } : undefined,
    contents,
  };
}

// ------------------------------------------------------------------ answers

const BLOCKED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

const FINISH: Readonly<Record<string, string>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  OTHER: 'other',
  LANGUAGE: 'other',
};

/** Gemini usage as Amplifier usage: input = prompt (cached included), output = candidates + thoughts. */
export function toUsage(wire: unknown): Usage | undefined {
  if (typeof wire !== 'object' || wire === null) return undefined;
  const u = wire as Json;
  const num = (v: unknown): number =>
    typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : 0;
  const input = num(u.promptTokenCount);
  const thoughts = num(u.thoughtsTokenCount);
  const output = num(u.candidatesTokenCount) + thoughts;
  const usage: Usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  const cached = num(u.cachedContentTokenCount);
  if (cached > 0) usage.cache_read_tokens = cached;
  if (thoughts > 0) usage.reasoning_tokens = thoughts;
  return usage;
}

/** Blocked categories of `safetyRatings` (`HARM_CATEGORY_HATE_SPEECH`), for the error message. */
function blockedCategories(ratings: unknown): string[] {
  if (!Array.isArray(ratings)) return [];
  return (ratings as Json[])
    .filter((r) => r?.blocked === true && typeof r.category === 'string')
    .map((r) => `${r.category as string}${typeof r.probability === 'string' ? ` (${r.probability})` : ''}`);
}

function filterError(
  what: string,
  reason: string,
  ratings: unknown,
  note: unknown,
  context: RequestContext,
): LLMError {
  const categories = blockedCategories(ratings);
  const detail = [
    categories.length > 0 ? `blocked categories: ${categories.join(', ')}` : '',
    typeof note === 'string' && note !== '' ? note : '',
  ]
    .filter(Boolean)
    .join('; ');
  return createLLMError(
    'content_filter',
    `${context.provider}: ${what} was blocked by Gemini (${reason}${detail ? `; ${detail}` : ''}); rephrase the request, or adjust safety_settings where the category allows it`,
    { ...context, retryable: false },
  );
}

/** A new call id: Gemini (before 3) sends none; it stays the call's id in the history. */
function newCallId(): string {
  return `gemini_call_${randomBytes(6).toString('hex')}`;
}

/**
 * Reads Gemini answers into one ChatResponse: a whole `generateContent`
 * answer, or the chunks of `streamGenerateContent` one after the other (each
 * chunk holds only the new parts; usage is cumulative, the last one counts).
 * Adjacent text (or thought) parts join into one block unless both carry a
 * signature; a signature is kept on the block (text, thinking) or call it
 * came on and never streamed. `push` returns the stream events of a chunk.
 */
export class AnswerReader {
  readonly #context: RequestContext;
  readonly #blocks: ContentBlock[] = [];
  readonly #calls: ToolCall[] = [];
  readonly #states: Record<string, CallState> = {};
  #last: 'text' | 'thinking' | 'call' | undefined;
  #usage: Usage | undefined;
  #finish: string | undefined;
  #model: string | undefined;
  #responseId: string | undefined;
  #started = false;

  constructor(context: RequestContext) {
    this.#context = context;
  }

  /** The finish reason came (the answer is complete). */
  get finished(): boolean {
    return this.#finish !== undefined;
  }

  /** The events of one answer (or chunk); throws the content-filter error of a blocked prompt or answer. */
  push(payload: Json): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (typeof payload.modelVersion === 'string') this.#model = payload.modelVersion;
    if (typeof payload.responseId === 'string') this.#responseId ??= payload.responseId;
    if (!this.#started) {
      this.#started = true;
      events.push(
        this.#model === undefined ? { type: 'message.start' } : { type: 'message.start', model: this.#model },
      );
    }
    const usage = toUsage(payload.usageMetadata);
    if (usage !== undefined) this.#usage = usage;
    const feedback = payload.promptFeedback as Json | undefined;
    if (typeof feedback?.blockReason === 'string' && feedback.blockReason !== '') {
      throw filterError(
        'the prompt',
        `blockReason ${feedback.blockReason}`,
        feedback.safetyRatings,
        feedback.blockReasonMessage,
        this.#context,
      );
    }
    const candidate = Array.isArray(payload.candidates)
      ? (payload.candidates[0] as Json | undefined)
      : undefined;
    if (candidate === undefined || candidate === null) return events;
    const parts = (candidate.content as Json | undefined)?.parts;
    if (Array.isArray(parts))
      for (const p of parts) if (typeof p === 'object' && p !== null) this.#part(p as Json, events);
    const reason = candidate.finishReason;
    if (typeof reason === 'string' && reason !== '' && reason !== 'FINISH_REASON_UNSPECIFIED') {
      this.#finish = reason;
      if (BLOCKED.has(reason)) {
        throw filterError(
          'the answer',
          `finishReason ${reason}`,
          candidate.safetyRatings,
          candidate.finishMessage,
          this.#context,
        );
      }
      if (reason === 'MALFORMED_FUNCTION_CALL' || reason === 'UNEXPECTED_TOOL_CALL') {
        const message = typeof candidate.finishMessage === 'string' ? `: ${candidate.finishMessage}` : '';
        throw createLLMError(
          'invalid_tool_call',
          `${this.#context.provider}: Gemini ended the answer with ${reason}${message}`,
          { ...this.#context, retryable: true },
        );
      }
    }
    return events;
  }

  #part(p: Json, events: StreamEvent[]): void {
    const signature =
      typeof p.thoughtSignature === 'string' && p.thoughtSignature !== '' ? p.thoughtSignature : undefined;
    const call = p.functionCall as Json | undefined;
    if (typeof call === 'object' && call !== null) {
      const wireId = typeof call.id === 'string' && call.id !== '';
      const id = wireId ? (call.id as string) : newCallId();
      const parsed = readToolCall(id, String(call.name ?? ''), call.args);
      this.#calls.push(parsed);
      const state: CallState = {};
      if (signature !== undefined) state.signature = signature;
      if (wireId) state.wire_id = true;
      if (Object.keys(state).length > 0) this.#states[id] = state;
      this.#last = 'call';
      events.push({ type: 'tool_call.start', id, name: parsed.name });
      events.push({ type: 'tool_call.end', id, name: parsed.name, arguments: parsed.arguments });
      return;
    }
    if (typeof p.text !== 'string') return; // inlineData, executableCode...: not Amplifier content
    const kind = p.thought === true ? 'thinking' : 'text';
    const text = p.text;
    const open = this.#blocks.at(-1);
    const openSignature = open === undefined ? undefined : (open as SignedText).signature;
    if (
      this.#last === kind &&
      open !== undefined &&
      !(signature !== undefined && openSignature !== undefined)
    ) {
      if (open.type === 'thinking') open.thinking += text;
      else (open as SignedText).text += text;
      if (signature !== undefined) (open as SignedText).signature = signature;
    } else if (text === '' && signature === undefined) {
      return; // an empty part (the finishReason chunk's) starts nothing
    } else if (
      text === '' &&
      this.#last !== undefined &&
      this.#last !== 'call' &&
      open !== undefined &&
      openSignature === undefined
    ) {
      (open as SignedText).signature = signature; // a signature-only part closes the block before it
      return;
    } else {
      const block: ContentBlock =
        kind === 'thinking'
          ? { type: 'thinking', thinking: text, ...(signature !== undefined && { signature }) }
          : ({ type: 'text', text, ...(signature !== undefined && { signature }) } as ContentBlock);
      this.#blocks.push(block);
      this.#last = kind;
    }
    if (text !== '')
      events.push({
        type: kind === 'thinking' ? 'thinking.delta' : 'text.delta',
        index: this.#blocks.length - 1,
        text,
      });
  }

  /** The whole answer. */
  response(): ChatResponse {
    const response: ChatResponse = { content: this.#blocks };
    if (this.#calls.length > 0) response.tool_calls = this.#calls;
    if (this.#usage !== undefined) response.usage = this.#usage;
    if (this.#finish !== undefined) {
      response.finish_reason =
        this.#calls.length > 0 && this.#finish === 'STOP'
          ? 'tool_calls'
          : (FINISH[this.#finish] ?? this.#finish.toLowerCase());
    }
    const metadata: Json = {};
    metadata[MODEL_KEY] = this.#model ?? this.#context.model;
    if (this.#responseId !== undefined) metadata['gemini:response_id'] = this.#responseId;
    if (this.#finish !== undefined) metadata['gemini:finish_reason'] = this.#finish;
    if (Object.keys(this.#states).length > 0) metadata[CALLS_KEY] = this.#states;
    response.metadata = metadata;
    return response;
  }
}

/** A whole `generateContent` answer as a ChatResponse (blocked ones throw content-filter errors). */
export function fromWireAnswer(payload: Json, context: RequestContext): ChatResponse {
  const reader = new AnswerReader(context);
  reader.push(payload);
  return reader.response();
}
