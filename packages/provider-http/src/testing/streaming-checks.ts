/**
 * Checks of Amplifier's token-streaming contract (`llm:stream_block_start|
 * delta|end`, `llm:stream_aborted`) for any provider, from the events it
 * emits on its hooks while `complete()` runs against a scripted source (a
 * `FakeLlmServer` replaying recorded wire streams, or a mock's script):
 * one `request_id` per call, one 0-based `block_index` space, a per-block
 * `sequence`, no empty deltas, no deltas for tool-input JSON, start before
 * deltas before end, every started block ended, `llm:stream_aborted` only
 * after a delta and last, nothing streamed for `metadata.stream === false`.
 */

import assert from 'node:assert/strict';
import type { ChatRequest, ChatResponse, EventSink } from '@amplifier/core';
import { FakeLlmServer, reply, splitBytes } from './fake-llm-server.js';

/** What the source answers the next call with. */
export type StreamingScenario =
  /** A streamed answer with text (at least one non-empty fragment). */
  | 'text'
  /** A streamed answer with a named tool call (text or thinking before it is fine). */
  | 'tool_use'
  /** A stream that fails (dropped, error event) after at least one text or thinking fragment; not retried. */
  | 'fail_after_delta'
  /** An answer that fails before anything streamed (an error status, a scripted error); not retried. */
  | 'fail_before_delta'
  /** The answer to a `metadata.stream === false` call: the provider's non-streaming path. */
  | 'non_streaming';

/** The part of a Provider the checks call. */
export interface StreamingProvider {
  complete(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
}

/** A provider ready for one call of a scenario, and how to release what it uses. */
export interface StreamingSubject {
  provider: StreamingProvider;
  close?(): Promise<void>;
}

/** A provider factory under test: streaming on (its default), its events to `hooks`. */
export interface StreamingUnderTest {
  /** A provider whose next `complete()` meets `scenario`. */
  start(scenario: StreamingScenario, hooks: EventSink): Promise<StreamingSubject>;
}

/** One named check of the contract. */
export interface StreamingCheck {
  readonly name: string;
  run(subject: StreamingUnderTest): Promise<void>;
}

/** An event as a provider emitted it: name and payload. */
export type RecordedStreamEvent = readonly [string, Record<string, unknown>];

const STREAM_EVENTS = new Set([
  'llm:stream_block_start',
  'llm:stream_block_delta',
  'llm:stream_block_end',
  'llm:stream_aborted',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEYS: Record<string, readonly string[]> = {
  'llm:stream_block_start': ['request_id', 'block_index', 'block_type'],
  'llm:stream_block_delta': ['request_id', 'block_index', 'block_type', 'sequence', 'text'],
  'llm:stream_block_end': ['request_id', 'block_index', 'block_type'],
  'llm:stream_aborted': ['request_id', 'error'],
};

/**
 * What is wrong with the stream events of one call (`[]`: nothing). `outcome`
 * says how the call ended: `ok` (every started block must be ended, no
 * `llm:stream_aborted`) or `failed` (`llm:stream_aborted` exactly when a
 * delta was emitted, as the last stream event). Other events are ignored.
 */
export function streamingContractProblems(
  events: readonly RecordedStreamEvent[],
  outcome: 'ok' | 'failed',
): string[] {
  const problems: string[] = [];
  const stream = events.filter(([name]) => name.startsWith('llm:stream_'));
  const blocks: { type: unknown; next: number; ended: boolean }[] = [];
  const ids = new Set<unknown>();
  let deltas = 0;
  let aborted = 0;
  stream.forEach(([name, data], at) => {
    const where = `${name} #${at}`;
    if (!STREAM_EVENTS.has(name)) {
      problems.push(`${where}: not an event of the contract`);
      return;
    }
    const expected = [
      ...KEYS[name]!,
      ...(name === 'llm:stream_block_start' && 'name' in data ? ['name'] : []),
    ];
    const keys = Object.keys(data).sort();
    if (keys.join() !== [...expected].sort().join()) {
      problems.push(`${where}: fields ${keys.join(', ')}; the contract has exactly ${expected.join(', ')}`);
    }
    ids.add(data.request_id);
    if (typeof data.request_id !== 'string' || !UUID.test(data.request_id)) {
      problems.push(`${where}: request_id ${JSON.stringify(data.request_id)} is not a uuid`);
    }
    if (aborted > 0) problems.push(`${where}: after llm:stream_aborted`);
    if (name === 'llm:stream_aborted') {
      aborted++;
      const error = data.error as Record<string, unknown> | undefined;
      if (typeof error?.type !== 'string' || error.type === '' || typeof error.msg !== 'string') {
        problems.push(`${where}: error ${JSON.stringify(error)} is not { type, msg }`);
      }
      if (deltas === 0) problems.push(`${where}: emitted though no delta was`);
      return;
    }
    const index = data.block_index;
    const type = data.block_type;
    if (name === 'llm:stream_block_start') {
      if (index !== blocks.length) {
        problems.push(
          `${where}: block_index ${String(index)}, expected ${blocks.length} (one 0-based index space)`,
        );
      }
      if (type !== 'text' && type !== 'thinking' && type !== 'tool_use') {
        problems.push(`${where}: block_type ${JSON.stringify(type)} is not text, thinking or tool_use`);
      }
      if ('name' in data && (type !== 'tool_use' || typeof data.name !== 'string' || data.name === '')) {
        problems.push(
          `${where}: name ${JSON.stringify(data.name)} on a ${String(type)} block (only a tool_use block has a name)`,
        );
      }
      blocks.push({ type, next: 0, ended: false });
      return;
    }
    const block = typeof index === 'number' ? blocks[index] : undefined;
    if (block === undefined) {
      problems.push(`${where}: block ${String(index)} was never started`);
      return;
    }
    if (block.ended) problems.push(`${where}: block ${index} already ended`);
    if (type !== block.type)
      problems.push(`${where}: block_type ${String(type)}, the block started as ${String(block.type)}`);
    if (name === 'llm:stream_block_end') {
      block.ended = true;
      return;
    }
    deltas++;
    if (type === 'tool_use' || block.type === 'tool_use')
      problems.push(`${where}: a delta for tool-input JSON`);
    if (typeof data.text !== 'string' || data.text === '') problems.push(`${where}: empty text`);
    if (data.sequence !== block.next) {
      problems.push(
        `${where}: sequence ${String(data.sequence)}, expected ${block.next} (0-based per block)`,
      );
    }
    block.next++;
  });
  if (ids.size > 1) problems.push(`${ids.size} request_ids in one call; all events of a call share one`);
  if (outcome === 'ok') {
    if (aborted > 0) problems.push('llm:stream_aborted for a call that succeeded');
    blocks.forEach((block, index) => {
      if (!block.ended) problems.push(`block ${index} (${String(block.type)}) was started and never ended`);
    });
  } else if (deltas > 0 && aborted === 0) {
    problems.push('the stream failed after a delta without llm:stream_aborted');
  }
  return problems;
}

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };

/** Run one call of `scenario`, recording every event the provider emits. */
async function run(
  subject: StreamingUnderTest,
  scenario: StreamingScenario,
  request: ChatRequest = REQUEST,
): Promise<{ events: RecordedStreamEvent[]; response?: ChatResponse; error?: unknown }> {
  const events: RecordedStreamEvent[] = [];
  const hooks: EventSink = {
    emit: async (event, data) => {
      events.push([event, structuredClone(data)]);
    },
  };
  const { provider, close } = await subject.start(scenario, hooks);
  try {
    const response = await provider.complete(request);
    return { events, response };
  } catch (error) {
    return { events, error };
  } finally {
    await close?.();
  }
}

function expectNoProblems(events: readonly RecordedStreamEvent[], outcome: 'ok' | 'failed'): void {
  const problems = streamingContractProblems(events, outcome);
  assert.ok(
    problems.length === 0,
    `the stream events break the contract:\n- ${problems.join('\n- ')}\nevents: ${events.map(([n]) => n).join(', ')}`,
  );
}

const names = (events: readonly RecordedStreamEvent[], name: string) =>
  events.filter(([event]) => event === name).map(([, data]) => data);

/** llm:request first and llm:response last, once each, around the stream events. */
function expectFramed(events: readonly RecordedStreamEvent[]): void {
  const order = events
    .map(([name]) => name)
    .filter((n) => n === 'llm:request' || n === 'llm:response' || n.startsWith('llm:stream_'));
  assert.ok(
    order[0] === 'llm:request' &&
      order.at(-1) === 'llm:response' &&
      names(events, 'llm:request').length === 1 &&
      names(events, 'llm:response').length === 1,
    `expected llm:request, the stream events, then llm:response, once each; got ${order.join(', ')}`,
  );
}

function textOf(response: ChatResponse | undefined): string {
  return (response?.content ?? []).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
}

/** Every check of the contract, in order. */
export const streamingContractChecks: readonly StreamingCheck[] = [
  {
    name: 'text: one request_id, start then deltas (sequence per block, never empty) then end; the deltas join to the text',
    async run(subject) {
      const { events, response, error } = await run(subject, 'text');
      assert.ok(error === undefined, `complete() failed: ${String(error)}`);
      expectNoProblems(events, 'ok');
      expectFramed(events);
      const deltas = names(events, 'llm:stream_block_delta');
      assert.ok(deltas.length > 0, 'no llm:stream_block_delta for a streamed text answer');
      const streamed = deltas
        .filter((d) => d.block_type === 'text')
        .map((d) => d.text as string)
        .join('');
      assert.ok(
        streamed === textOf(response),
        `the text deltas join to ${JSON.stringify(streamed)}, the response's text is ${JSON.stringify(textOf(response))}`,
      );
    },
  },
  {
    name: 'tool_use: a named tool_use block gets block_start and block_end only, no deltas for its input; the response holds each call once, in tool_calls',
    async run(subject) {
      const { events, response, error } = await run(subject, 'tool_use');
      assert.ok(error === undefined, `complete() failed: ${String(error)}`);
      expectNoProblems(events, 'ok');
      expectFramed(events);
      const tools = names(events, 'llm:stream_block_start').filter((d) => d.block_type === 'tool_use');
      assert.ok(tools.length > 0, 'no tool_use llm:stream_block_start for a streamed tool call');
      const calls = response?.tool_calls ?? [];
      const called = calls.map((c) => c.name);
      // Each call is stored once, in tool_calls, with its arguments read (an object, or invalid_arguments).
      for (const block of response?.content ?? []) {
        assert.ok(
          block.type !== 'tool_call',
          `the response holds call ${String((block as { id?: unknown }).id)} as a tool_call content block; a call belongs in tool_calls only`,
        );
      }
      for (const call of calls) {
        assert.ok(
          typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments),
          `call ${call.id} has arguments ${JSON.stringify(call.arguments)}; they must be an object (arguments that were not one are reported in invalid_arguments)`,
        );
      }
      for (const tool of tools) {
        assert.ok(
          called.includes(tool.name as string),
          `tool_use block named ${String(tool.name)}; the response calls ${called.join(', ')}`,
        );
      }
    },
  },
  {
    name: 'a failure after a delta: llm:stream_aborted { request_id, error: { type, msg } } last, then the error propagates',
    async run(subject) {
      const { events, error } = await run(subject, 'fail_after_delta');
      assert.ok(error !== undefined, 'complete() succeeded; the scenario fails after a delta');
      expectNoProblems(events, 'failed');
      const aborted = names(events, 'llm:stream_aborted');
      assert.ok(aborted.length === 1, `${aborted.length} llm:stream_aborted, expected 1`);
      const message = error instanceof Error ? error.message : String(error);
      const info = aborted[0]!.error as { type: string; msg: string };
      assert.ok(
        info.msg === message,
        `llm:stream_aborted says ${JSON.stringify(info.msg)}, the error ${JSON.stringify(message)}`,
      );
      const response = events.findIndex(([n]) => n === 'llm:response');
      const abortedAt = events.findIndex(([n]) => n === 'llm:stream_aborted');
      assert.ok(response === -1 || response > abortedAt, 'llm:response came before llm:stream_aborted');
    },
  },
  {
    name: 'a failure before any delta: no llm:stream_aborted',
    async run(subject) {
      const { events, error } = await run(subject, 'fail_before_delta');
      assert.ok(error !== undefined, 'complete() succeeded; the scenario fails');
      expectNoProblems(events, 'failed');
      assert.ok(
        names(events, 'llm:stream_aborted').length === 0,
        'llm:stream_aborted though nothing streamed',
      );
    },
  },
  {
    name: 'metadata.stream === false: the non-streaming path, no llm:stream_* event, llm:request and llm:response as usual',
    async run(subject) {
      const { events, error } = await run(subject, 'non_streaming', {
        ...REQUEST,
        metadata: { stream: false },
      });
      assert.ok(error === undefined, `complete() failed: ${String(error)}`);
      const streamed = events.filter(([n]) => n.startsWith('llm:stream_')).map(([n]) => n);
      assert.ok(streamed.length === 0, `stream events on the non-streaming path: ${streamed.join(', ')}`);
      expectFramed(events);
      const request = names(events, 'llm:request')[0]!;
      assert.ok(
        request.stream === undefined || request.stream === false,
        `llm:request says stream: ${String(request.stream)}`,
      );
    },
  },
];

/** Recorded answers of one API, for `replayedStreams`. */
export interface ReplayedAnswers {
  /** SSE text of a streamed text answer (a recorded wire stream). */
  text: string;
  /** SSE text of a streamed answer with a tool call. */
  toolUse: string;
  /** The JSON body of a non-streamed answer. */
  nonStreaming: unknown;
  /** A non-retryable error answer (a 400). */
  error: { status: number; body: unknown };
  /** SSE messages of `text` sent before the connection drops (default: 60 % of them; include a delta). */
  failAfterMessages?: number;
  /** The provider under test against the fake server at `url` (streaming on), its events to `hooks`. */
  provider(url: string, hooks: EventSink): StreamingProvider & { close?(): Promise<void> };
}

/**
 * A `StreamingUnderTest` for an HTTP provider: each scenario starts a
 * `FakeLlmServer` that replays the recorded answers (SSE in 61-byte pieces,
 * split inside lines and characters; `fail_after_delta` drops the connection
 * after some of the text stream's messages).
 */
export function replayedStreams(answers: ReplayedAnswers): StreamingUnderTest {
  return {
    async start(scenario, hooks) {
      const server = await FakeLlmServer.start();
      const messages = answers.text.split(/(?<=\n\n|\r\n\r\n)/);
      const kept = answers.failAfterMessages ?? Math.ceil(messages.length * 0.6);
      server.enqueue(
        scenario === 'text'
          ? reply.sse(splitBytes(answers.text, 61))
          : scenario === 'tool_use'
            ? reply.sse(splitBytes(answers.toolUse, 61))
            : scenario === 'fail_after_delta'
              ? reply.sseThenDrop(messages.slice(0, kept))
              : scenario === 'fail_before_delta'
                ? reply.json(answers.error.status, answers.error.body)
                : reply.json(200, answers.nonStreaming),
      );
      const provider = answers.provider(server.url, hooks);
      return {
        provider,
        async close() {
          await provider.close?.();
          await server.close();
        },
      };
    },
  };
}
