/**
 * An in-memory wire for `ProviderCalls` tests: each `open` takes the next
 * scripted outcome (an error to throw, or a response whose stream events or
 * whole body the wire hands back). The HTTP side is tested per provider.
 */

import type { ChatRequest, ChatResponse, StreamEvent } from '@amplifier/core';
import { createLLMError } from '@amplifier/core';
import { EventRecorder, RecordingLogger } from '@amplifier/testing';
import { type CallSettings, type ProviderCall, ProviderCalls, type ProviderWire } from '../calls.js';
import { CostMeter } from '../cost.js';

export const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };
export const RESPONSE: ChatResponse = {
  content: [{ type: 'text', text: 'Hello!' }],
  usage: { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 },
  finish_reason: 'stop',
};

/** What one `open` gives: an error to throw, or events (the last one `message.end` unless cut). */
export type Outcome = Error | { events: StreamEvent[]; fail?: Error; hang?: true };

export function textEvents(response: ChatResponse = structuredClone(RESPONSE)): StreamEvent[] {
  return [
    { type: 'message.start' },
    { type: 'text.delta', text: 'Hel' },
    { type: 'text.delta', text: 'lo!' },
    { type: 'message.end', response },
  ];
}

export function setup(
  outcomes: Outcome[],
  settings: Partial<CallSettings> = {},
  hooks?: { emit(event: string, data: Record<string, unknown>): Promise<unknown> },
) {
  const recorder = new EventRecorder();
  const logger = new RecordingLogger();
  const calls: ProviderCall[] = [];
  const built: unknown[] = [];
  const wire: ProviderWire<Exclude<Outcome, Error>> = {
    build(request, messages, { model, stream }) {
      built.push(messages);
      return {
        body: { model, stream, messages, api_key: 'sk-secret' },
        messageCount: messages.length,
        hasInstructions: false,
        thinking: { enabled: request.reasoning_effort !== undefined, budget: null },
        extra: { has_system: false },
      };
    },
    async open(call) {
      calls.push(call);
      const next = outcomes.shift();
      if (next === undefined) throw new Error('no outcome scripted');
      if (next instanceof Error) throw next;
      return next;
    },
    async read(_call, opened) {
      const end = opened.events.at(-1);
      if (end?.type !== 'message.end') throw new Error('not a whole response');
      return end.response;
    },
    async *events(call, opened) {
      yield* opened.events;
      if (opened.hang) {
        await new Promise((_resolve, reject) => {
          if (call.signal?.aborted) reject(createLLMError('abort', 'aborted'));
          call.signal?.addEventListener('abort', () => reject(createLLMError('abort', 'aborted')), {
            once: true,
          });
        });
      }
      if (opened.fail) throw opened.fail;
    },
  };
  const runner = new ProviderCalls({
    provider: 'fake',
    module: 'provider-fake',
    hooks: hooks ?? recorder,
    logger,
    config: {
      model: 'default-model',
      timeoutMs: 30_000,
      maxRetries: 2,
      minRetryDelayMs: 1,
      maxRetryDelayMs: 60_000,
      jitter: 0,
      raw: false,
      ...settings,
    },
    costs: new CostMeter({}, { 'default-model': { input: 2, output: 10 } }),
    wire,
  });
  return { runner, recorder, logger, calls, built };
}

export const unavailable = () => createLLMError('unavailable', 'busy', { status_code: 503 });
