/**
 * The loop-basic checklist of the reference (amplifier-modules.md §13), one
 * test per item, numbered as there.
 */
import {
  AuthenticationError,
  type ChatResponse,
  type ContentBlock,
  LLMError,
  ProviderUnavailableError,
  RateLimitError,
} from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  calls,
  deferred,
  FREE_PROFILE,
  harness,
  ScriptProvider,
  TestTool,
  text,
  toolMessages,
  untilAborted,
  within,
} from './__fixtures__/harness.js';
import { CANCELLED_MESSAGE, LOOP_LIMIT_REMINDER } from './orchestrator.js';
import { cancelledContent } from './tool-runner.js';

describe('loop-basic checklist (reference §13)', () => {
  it('1. a text-only response returns the joined text blocks, never thinking in any shape', async () => {
    const content = [
      { type: 'thinking', thinking: 'secret plan' },
      { type: 'text', text: 'Hello' },
      { type: 'thinking', thinking: 'x', text: 'thinking with a text field' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'reasoning', content: ['hidden'], summary: ['hidden summary'] },
      { text: 'typeless dict counts as text' },
      { type: 'text', text: 'World' },
    ] as unknown as ContentBlock[];
    const h = harness([{ content }]);
    const result = await h.run();
    expect(result).toBe('Hello\n\ntypeless dict counts as text\n\nWorld');
    expect(result).not.toMatch(/secret|thinking with|opaque|hidden/);
  });

  it('2. the context receives the user message, then the assistant message with blocks and metadata', async () => {
    const response: ChatResponse = {
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Answer' },
      ],
      metadata: { reasoning_id: 'rs_1' },
    };
    const h = harness([response]);
    await h.run('question');
    expect(h.context.messages).toEqual([
      { role: 'user', content: 'question' },
      { role: 'assistant', content: response.content, metadata: { reasoning_id: 'rs_1' } },
    ]);
  });

  it('3. events of a no-tool turn come in the reference order with the reference payloads', async () => {
    const usage = { input_tokens: 3, output_tokens: 2, total_tokens: 5 };
    const h = harness([text('Hi there', { usage })]);
    await h.run('hey');
    expect(h.recorder.names()).toEqual([
      'prompt:submit',
      'provider:request',
      'provider:response',
      'content_block:start',
      'content_block:end',
      'prompt:complete',
      'orchestrator:complete',
    ]);
    const data = Object.fromEntries(h.recorder.events.map(([name, d]) => [name, d]));
    expect(data['prompt:submit']).toMatchObject({ prompt: 'hey' });
    expect(data['provider:request']).toMatchObject({ provider: 'scripted', iteration: 0 });
    expect(data['provider:response']).toMatchObject({ provider: 'scripted', usage, tool_calls: false });
    expect(data['content_block:start']).toMatchObject({
      block_type: 'text',
      block_index: 0,
      total_blocks: 1,
    });
    expect(data['content_block:end']).toMatchObject({
      block_index: 0,
      total_blocks: 1,
      block: { type: 'text', text: 'Hi there' },
      usage,
    });
    expect(data['prompt:complete']).toMatchObject({ response_preview: 'Hi there', length: 8 });
    expect(data['orchestrator:complete']).toMatchObject({
      orchestrator: 'loop-basic',
      status: 'success',
      turn_count: 0,
    });
    // The kernel's default fields and timestamp are on every payload.
    expect(data['prompt:submit']).toMatchObject({ session_id: 'test-session' });
  });

  it('4. two calls of one response run concurrently, share a parallel_group_id, results in call order', async () => {
    const bothStarted = deferred();
    const secondDone = deferred();
    let started = 0;
    const first = new TestTool({
      name: 'first',
      profile: FREE_PROFILE,
      behave: async () => {
        if (++started === 2) bothStarted.resolve();
        await bothStarted.promise;
        await secondDone.promise; // finishes after the second
        return { success: true, output: 'first result' };
      },
    });
    const second = new TestTool({
      name: 'second',
      profile: FREE_PROFILE,
      behave: async () => {
        if (++started === 2) bothStarted.resolve();
        await bothStarted.promise;
        secondDone.resolve();
        return { success: true, output: 'second result' };
      },
    });
    const h = harness([calls(['first'], ['second']), text('done')], { tools: [first, second] });
    expect(await within(h.run(), 'both tools running at once')).toBe('done');
    expect(toolMessages(h.context)).toEqual([
      ['call_1', 'first result'],
      ['call_2', 'second result'],
    ]);
    const ends = [...first.log, ...second.log].filter((e) => e.event === 'end');
    expect(ends).toHaveLength(2);
    const groups = h.recorder.events
      .filter(([name]) => name === 'tool:pre' || name === 'tool:post')
      .map(([, d]) => d.parallel_group_id);
    expect(groups).toHaveLength(4);
    expect(new Set(groups).size).toBe(1);
    expect(typeof groups[0]).toBe('string');
  });

  it('5. the assistant message with tool_calls is in context before any tool result', async () => {
    const h = harness([calls(['probe', { q: 1 }, 'c1']), text('ok')]);
    const probe = new TestTool({
      name: 'probe',
      schema: { type: 'object', properties: { q: { type: 'number' } } },
      behave: () => {
        const last = h.context.messages.at(-1);
        return { success: true, output: JSON.stringify(last) };
      },
    });
    h.coordinator.mount('tools', probe);
    await h.run();
    const [assistant, tool] = h.context.messages.slice(1);
    expect(assistant).toEqual({
      role: 'assistant',
      content: [],
      tool_calls: [{ id: 'c1', tool: 'probe', arguments: { q: 1 } }],
    });
    expect(JSON.parse(tool?.content as string)).toEqual(assistant);
  });

  it('6. tool:pre deny: the tool does not run and its result is "Denied by hook: <reason>"', async () => {
    const tool = new TestTool({ name: 'danger' });
    const h = harness([calls(['danger']), text('ok')], { tools: [tool] });
    h.coordinator.hooks.register('tool:pre', () => ({ action: 'deny', reason: 'not today' }));
    await h.run();
    expect(tool.inputs).toHaveLength(0);
    expect(toolMessages(h.context)).toEqual([['call_1', 'Denied by hook: not today']]);
    expect(h.recorder.names()).not.toContain('tool:post');
    expect(h.recorder.names()).not.toContain('tool:error');
  });

  it('7. an unknown tool gives "Error: Tool \'<name>\' not found" and a tool:error event', async () => {
    const h = harness([calls(['nope']), text('ok')], { tools: [new TestTool({ name: 'real' })] });
    await h.run();
    const [[, content]] = toolMessages(h.context) as [[string, string]];
    expect(content.startsWith("Error: Tool 'nope' not found")).toBe(true);
    expect(content).toContain('Available tools: real');
    const [[, error]] = h.recorder.getEvents('tool:error') as [[string, Record<string, unknown>]];
    expect(error).toMatchObject({ tool_name: 'nope', error: { msg: "Error: Tool 'nope' not found" } });
  });

  it('8. a tool throwing "boom" gives "Error executing tool: boom" and tool:error; the loop continues', async () => {
    const tool = new TestTool({
      name: 'bomb',
      behave: () => {
        throw new Error('boom');
      },
    });
    const h = harness([calls(['bomb']), text('recovered')], { tools: [tool] });
    expect(await h.run()).toBe('recovered');
    expect(toolMessages(h.context)).toEqual([['call_1', 'Error executing tool: boom']]);
    const [[, error]] = h.recorder.getEvents('tool:error') as [[string, Record<string, unknown>]];
    expect(error).toMatchObject({ tool_name: 'bomb', error: { type: 'Error', msg: 'boom' } });
    expect(h.provider.requests).toHaveLength(2);
  });

  it('9. a tool:post modify with data.result makes the tool message the JSON of that object', async () => {
    const h = harness([calls(['t']), text('ok')], { tools: [new TestTool({ name: 't' })] });
    h.coordinator.hooks.register('tool:post', (_event, data) => ({
      action: 'modify',
      data: { ...data, result: { redacted: true, n: 1 } },
    }));
    await h.run();
    expect(toolMessages(h.context)).toEqual([['call_1', '{"redacted":true,"n":1}']]);
  });

  it('10. an ephemeral tool:post injection is in the next request only; append_to_last_tool_result appends', async () => {
    const h = harness([calls(['a'], ['b']), text('ok')], {
      tools: [new TestTool({ name: 'a' }), new TestTool({ name: 'b' })],
    });
    h.coordinator.hooks.register('tool:post', (_event, data) =>
      data.tool_name === 'a'
        ? { action: 'inject_context', context_injection: 'note for the model', ephemeral: true }
        : {
            action: 'inject_context',
            context_injection: 'appended note',
            ephemeral: true,
            append_to_last_tool_result: true,
          },
    );
    await h.run();
    const second = h.provider.requests[1]!.messages;
    // Stored: user, assistant, tool a, tool b, final assistant. Nothing injected.
    expect(h.context.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(JSON.stringify(h.context.messages)).not.toContain('note');
    // Request 2: the 'b' note appended to the last tool result (b), the 'a' note as a system message.
    expect(second.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'a ok' },
      { role: 'tool', tool_call_id: 'call_2', content: 'b ok\n\nappended note' },
      { role: 'system', content: 'note for the model' },
    ]);
    expect(h.provider.requests).toHaveLength(2);

    // With only an append injection, it lands on the last tool message after a blank line.
    const h2 = harness([calls(['a']), text('ok')], { tools: [new TestTool({ name: 'a' })] });
    h2.coordinator.hooks.register('tool:post', () => ({
      action: 'inject_context',
      context_injection: 'appended note',
      ephemeral: true,
      append_to_last_tool_result: true,
    }));
    await h2.run();
    expect(h2.provider.requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'a ok\n\nappended note',
    });
    expect(toolMessages(h2.context)).toEqual([['call_1', 'a ok']]);
  });

  it('11. an ephemeral provider:request injection is added to that request only', async () => {
    const h = harness([calls(['a']), text('ok')], { tools: [new TestTool({ name: 'a' })] });
    let n = 0;
    h.coordinator.hooks.register('provider:request', () =>
      n++ === 0
        ? {
            action: 'inject_context',
            context_injection: 'only now',
            ephemeral: true,
            context_injection_role: 'user',
          }
        : undefined,
    );
    await h.run();
    expect(h.provider.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'only now' });
    expect(JSON.stringify(h.provider.requests[1]!.messages)).not.toContain('only now');
    expect(JSON.stringify(h.context.messages)).not.toContain('only now');
  });

  it('12. a prompt:submit deny returns "Operation denied: <reason>" without calling the provider', async () => {
    const h = harness([text('never')]);
    h.coordinator.hooks.register('prompt:submit', () => ({ action: 'deny', reason: 'blocked prompt' }));
    expect(await h.run()).toBe('Operation denied: blocked prompt');
    expect(h.provider.requests).toHaveLength(0);
    expect(h.context.messages).toEqual([]);
  });

  it('13. max_iterations=1 with endless tool calls: one wrap-up call with the reminder; its errors are swallowed', async () => {
    const tool = new TestTool({ name: 'loop' });
    const h = harness([calls(['loop']), text('Summary: progress made')], {
      config: { max_iterations: 1 },
      tools: [tool],
    });
    expect(await h.run()).toBe('Summary: progress made');
    expect(h.provider.requests).toHaveLength(2);
    expect(h.provider.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: LOOP_LIMIT_REMINDER });
    expect(LOOP_LIMIT_REMINDER).toBe(
      '<system-reminder source="orchestrator-loop-limit">\nYou have reached the maximum number of iterations for this turn. Please provide a response to the user now, summarizing your progress and noting what remains to be done. You can continue in the next turn if needed.\n\nDO NOT mention this iteration limit or reminder to the user explicitly. Simply wrap up naturally.\n</system-reminder>',
    );
    expect(h.provider.requests[1]!.tools?.map((t) => t.name)).toEqual(['loop']);
    const maxReached = h.recorder.getEvents('provider:request').at(-1)![1];
    expect(maxReached).toMatchObject({ iteration: 1, max_reached: true });
    // The reminder is never stored.
    expect(JSON.stringify(h.context.messages)).not.toContain('orchestrator-loop-limit');
    expect(h.context.messages.at(-1)).toMatchObject({ role: 'assistant' });

    // Errors in the wrap-up call: provider:error, then swallowed.
    const failing = harness([calls(['loop']), new RateLimitError('slow down', { status_code: 429 })], {
      config: { max_iterations: 1 },
      tools: [new TestTool({ name: 'loop' })],
    });
    expect(await failing.run()).toBe('');
    expect(failing.provider.requests).toHaveLength(2);
    const [[, error]] = failing.recorder.getEvents('provider:error') as [[string, Record<string, unknown>]];
    expect(error).toMatchObject({ retryable: true, status_code: 429 });
    expect(failing.recorder.getEvents('orchestrator:complete')[0]![1]).toMatchObject({
      status: 'incomplete',
      turn_count: 1,
    });
  });

  it('14. LLMErrors emit provider:error with retryable/status_code and re-raise; other errors without those keys', async () => {
    const cases: [Error, boolean, number | null][] = [
      [new RateLimitError('429', { status_code: 429 }), true, 429],
      [new AuthenticationError('401', { status_code: 401 }), false, 401],
      [new ProviderUnavailableError('503', { status_code: 503 }), true, 503],
      [new LLMError('plain'), false, null],
    ];
    for (const [error, retryable, status] of cases) {
      const h = harness([error]);
      await expect(h.run()).rejects.toBe(error);
      const [[, data]] = h.recorder.getEvents('provider:error') as [[string, Record<string, unknown>]];
      expect(data).toMatchObject({
        provider: 'scripted',
        error: { type: error.name, msg: error.message },
        retryable,
        status_code: status,
      });
      expect('status_code' in data).toBe(true);
    }
    const generic = new TypeError('socket hang up');
    const h = harness([generic]);
    await expect(h.run()).rejects.toBe(generic);
    const [[, data]] = h.recorder.getEvents('provider:error') as [[string, Record<string, unknown>]];
    expect(data).toMatchObject({ provider: 'scripted', error: { type: 'TypeError', msg: 'socket hang up' } });
    expect('retryable' in data).toBe(false);
    expect('status_code' in data).toBe(false);
  });

  it('15. reasoning_effort reaches the ChatRequest; extended_thinking reaches complete() as an option', async () => {
    const h = harness([text('ok')], { config: { reasoning_effort: 'high', extended_thinking: true } });
    await h.run();
    expect(h.provider.requests[0]!.reasoning_effort).toBe('high');
    expect(h.provider.options[0]).toMatchObject({ extended_thinking: true });
    expect(h.provider.options[0]!.signal).toBe(h.coordinator.cancellation.signal);

    const plain = harness([text('ok')]);
    await plain.run();
    expect(plain.provider.requests[0]!.reasoning_effort).toBeUndefined();
    expect(plain.provider.options[0]).not.toHaveProperty('extended_thinking');
  });

  it('16. the provider with the lowest priority number is selected; none raises "No provider available"', async () => {
    const low = new ScriptProvider([text('from low')], { name: 'low', priority: 1 });
    const h = harness([text('from default')], {
      provider: new ScriptProvider([text('x')], { name: 'default' }),
    });
    h.coordinator.mount('providers', new ScriptProvider([text('high')], { name: 'high', priority: 500 }));
    h.coordinator.mount('providers', low);
    expect(await h.run()).toBe('from low');
    expect(h.recorder.getEvents('provider:request')[0]![1]).toMatchObject({ provider: 'low' });

    // `config.priority` is read too (reference); ties keep mount order.
    const tie = harness([text('first')], { provider: new ScriptProvider([text('first')], { name: 'a' }) });
    const configured = Object.assign(new ScriptProvider([text('configured')], { name: 'b' }), {
      config: { priority: 5 },
    });
    tie.coordinator.mount('providers', new ScriptProvider([text('second')], { name: 'c' }));
    tie.coordinator.mount('providers', configured);
    expect(await tie.run()).toBe('configured');

    const none = harness([text('x')]);
    none.coordinator.unmount('providers', { name: 'scripted' });
    await expect(none.run()).rejects.toThrow('No provider available');
  });

  it('17. a cancellation set before an iteration: cancel:requested once, cancel:completed, orchestrator:complete', async () => {
    const h = harness([calls(['t']), text('never')], { tools: [new TestTool({ name: 't' })] });
    let callbacks = 0;
    h.coordinator.cancellation.onCancel(() => {
      callbacks++;
    });
    // Graceful cancellation during the tool round stops the loop at the next iteration.
    h.coordinator.hooks.register('tool:post', () => {
      h.coordinator.cancellation.requestGraceful();
    });
    expect(await h.run()).toBe('');
    expect(h.provider.requests).toHaveLength(1);
    const names = h.recorder.names();
    expect(names.filter((n) => n === 'cancel:requested')).toHaveLength(1);
    expect(names.slice(-3)).toEqual(['cancel:requested', 'cancel:completed', 'orchestrator:complete']);
    const events = Object.fromEntries(h.recorder.events.map(([n, d]) => [n, d]));
    expect(events['cancel:requested']).toMatchObject({
      orchestrator: 'loop-basic',
      state: 'graceful',
      turn_count: 1,
    });
    expect(events['cancel:completed']).toMatchObject({
      orchestrator: 'loop-basic',
      was_immediate: false,
      turn_count: 1,
    });
    expect(events['orchestrator:complete']).toMatchObject({ status: 'cancelled', turn_count: 1 });
    expect(callbacks).toBe(1);
    // The round's result was written (graceful: running tools finish).
    expect(toolMessages(h.context)).toEqual([['call_1', 't ok']]);

    // Cancelled before the first iteration: no provider call at all.
    const early = harness([text('never')]);
    early.coordinator.cancellation.requestGraceful();
    expect(await early.run()).toBe('');
    expect(early.provider.requests).toHaveLength(0);
    expect(early.recorder.names().slice(-3)).toEqual([
      'cancel:requested',
      'cancel:completed',
      'orchestrator:complete',
    ]);
  });

  it('18. immediate cancellation during tools writes a result for every call, then the synthetic message', async () => {
    const slowStarted = deferred();
    const quick = new TestTool({ name: 'quick', profile: FREE_PROFILE });
    const slow = new TestTool({
      name: 'slow',
      profile: FREE_PROFILE,
      behave: (_input, { signal }) => {
        slowStarted.resolve();
        return untilAborted(signal, { success: false, error: { message: 'aborted' } });
      },
    });
    const h = harness([calls(['quick'], ['slow'], ['quick']), text('never')], { tools: [quick, slow] });
    const turn = h.run();
    await within(slowStarted.promise, 'the slow tool started');
    await h.coordinator.requestCancel({ immediate: true });
    expect(await within(turn, 'the turn ended')).toBe('');
    expect(toolMessages(h.context)).toEqual([
      ['call_1', 'quick ok'],
      ['call_2', cancelledContent('slow')],
      ['call_3', 'quick ok'],
    ]);
    expect(cancelledContent('slow')).toBe(
      '{"error": "Tool execution was cancelled by user", "cancelled": true, "tool": "slow"}',
    );
    expect(h.context.messages.at(-1)).toEqual({ role: 'assistant', content: CANCELLED_MESSAGE });
    expect(h.provider.requests).toHaveLength(1);
    expect(slow.signals[0]!.aborted).toBe(true);
    expect(h.recorder.getEvents('orchestrator:complete')[0]![1]).toMatchObject({ status: 'cancelled' });
    expect(h.recorder.getEvents('cancel:completed').at(-1)![1]).toMatchObject({ was_immediate: true });
  });
});
