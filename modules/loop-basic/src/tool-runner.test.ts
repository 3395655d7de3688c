/**
 * Tool calls: the reference's hazards fixed, input validation, per-tool
 * timeouts, output truncation, aliases, signals and the approval flow.
 */
import {
  type ApprovalProvider,
  type ApprovalRequest,
  readToolCall,
  type SubSessions,
  type ToolResult,
} from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  calls,
  deferred,
  FREE_PROFILE,
  harness,
  TestTool,
  text,
  toolMessages,
  untilAborted,
  within,
} from './__fixtures__/harness.js';
import { cancelledContent } from './tool-runner.js';

const bashSchema = {
  type: 'object',
  properties: { command: { type: 'string' }, timeout: { type: 'number' } },
  required: ['command'],
  additionalProperties: false,
};

describe('hazards of the reference, fixed', () => {
  it('tool:pre modify rewrites the input the tool receives', async () => {
    const tool = new TestTool({ name: 'bash', schema: bashSchema });
    const h = harness([calls(['bash', { command: 'rm -rf /' }]), text('ok')], { tools: [tool] });
    h.coordinator.hooks.register('tool:pre', (_event, data) => ({
      action: 'modify',
      data: { ...data, tool_input: { command: 'echo safe' } },
    }));
    await h.run();
    expect(tool.inputs).toEqual([{ command: 'echo safe' }]);
    // tool:post reports the input that actually ran.
    expect(h.recorder.getEvents('tool:post')[0]![1]).toMatchObject({ tool_input: { command: 'echo safe' } });
  });

  it('tool:pre modify is re-validated: a rewritten input that breaks the schema does not run', async () => {
    const tool = new TestTool({ name: 'bash', schema: bashSchema });
    const h = harness([calls(['bash', { command: 'ls' }]), text('ok')], { tools: [tool] });
    h.coordinator.hooks.register('tool:pre', (_event, data) => ({
      action: 'modify',
      data: { ...data, tool_input: { command: 42 } },
    }));
    await h.run();
    expect(tool.inputs).toHaveLength(0);
    expect(toolMessages(h.context)[0]![1]).toContain('command: must be string');
  });

  it('durable injections from tool:post (and tool:pre) wait until every result of the round is in context', async () => {
    const h = harness([calls(['a'], ['b']), text('ok')], {
      tools: [
        new TestTool({ name: 'a', profile: FREE_PROFILE }),
        new TestTool({ name: 'b', profile: FREE_PROFILE }),
      ],
    });
    h.coordinator.hooks.register('tool:post', (_event, data) => ({
      action: 'inject_context',
      context_injection: `after ${String(data.tool_name)}`,
    }));
    h.coordinator.hooks.register('tool:pre', (_event, data) =>
      data.tool_name === 'b' ? { action: 'inject_context', context_injection: 'before b' } : undefined,
    );
    await h.run();
    const stored = h.context.messages.map((m) => [m.role, m.tool_call_id ?? m.content]);
    expect(stored).toEqual([
      ['user', 'hello'],
      ['assistant', []],
      ['tool', 'call_1'],
      ['tool', 'call_2'],
      ['system', 'after a'],
      ['system', 'before b'],
      ['system', 'after b'],
      ['assistant', [{ type: 'text', text: 'ok' }]],
    ]);
    expect(h.context.messages[4]!.metadata).toMatchObject({
      source: 'hook',
      hook_name: 'a',
      event: 'tool:post',
    });
    // The provider saw a valid sequence: tool results right after the assistant's calls.
    expect(h.provider.requests[1]!.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'system',
      'system',
      'system',
    ]);
  });

  it('empty responses cannot spin forever: the turn ends after max_empty_responses with a clear message', async () => {
    const h = harness([{ content: [] }]);
    const result = await within(h.run(), 'the turn ended');
    expect(result).toMatch(/empty response 3 times in a row/);
    expect(h.provider.requests).toHaveLength(3);
    expect(h.recorder.getEvents('orchestrator:complete')[0]![1]).toMatchObject({
      status: 'incomplete',
      turn_count: 3,
    });

    const once = harness([{ content: [] }, { content: [] }, text('finally')], {
      config: { max_empty_responses: 5 },
    });
    expect(await once.run()).toBe('finally');
  });

  it('a zero-argument call works (arguments {}, missing, null, or an empty string)', async () => {
    const tool = new TestTool({ name: 'now' });
    const response = {
      content: [],
      tool_calls: [
        { id: 'a', name: 'now', arguments: {} },
        { id: 'b', name: 'now' },
        { id: 'c', name: 'now', arguments: null },
        { id: 'd', name: 'now', arguments: '' },
        { id: 'e', name: 'now', arguments: '{"x":1}' },
      ],
    } as unknown as Parameters<typeof harness>[0][number];
    const h = harness([response, text('ok')], { tools: [tool] });
    await h.run();
    expect(tool.inputs).toEqual([{}, {}, {}, {}, { x: 1 }]);
    expect(toolMessages(h.context).map(([, c]) => c)).toEqual(Array(5).fill('now ok'));
    const stored = h.context.messages[1]!.tool_calls!;
    // Stored as objects too, so the next request does not carry a JSON string twice encoded.
    expect(stored.map((c) => c.arguments)).toEqual([{}, {}, {}, {}, { x: 1 }]);
  });

  it('a call without an id gets one, shared by the stored call and its result', async () => {
    const response = { content: [], tool_calls: [{ name: 'now', arguments: {} }] } as unknown as Parameters<
      typeof harness
    >[0][number];
    const h = harness([response, text('ok')], { tools: [new TestTool({ name: 'now' })] });
    await h.run();
    const id = h.context.messages[1]!.tool_calls![0]!.id;
    expect(id).toMatch(/^call_/);
    expect(toolMessages(h.context)).toEqual([[id, 'now ok']]);
  });
});

describe('input validation', () => {
  it('an invalid call names each bad field and the tool is not run', async () => {
    const tool = new TestTool({ name: 'bash', schema: bashSchema });
    const h = harness([calls(['bash', { command: 5, timeout: 'soon', extra: true }]), text('ok')], {
      tools: [tool],
    });
    await h.run();
    expect(tool.inputs).toHaveLength(0);
    const [[, content]] = toolMessages(h.context) as [[string, string]];
    expect(content).toContain("invalid input for tool 'bash'");
    expect(content).toContain('command: must be string');
    expect(content).toContain('timeout: must be number');
    expect(content).toContain('extra: is not allowed (unknown key)');
    expect(h.recorder.getEvents('tool:error')[0]![1]).toMatchObject({
      tool_name: 'bash',
      error: { type: 'ValidationError' },
    });
    expect(h.recorder.names()).not.toContain('tool:post');
  });

  it('a missing required field is named', async () => {
    const h = harness([calls(['bash', {}]), text('ok')], {
      tools: [new TestTool({ name: 'bash', schema: bashSchema })],
    });
    await h.run();
    expect(toolMessages(h.context)[0]![1]).toContain('command: is required');
  });

  it('a valid call runs; a tool with an unusable schema reports it instead of crashing', async () => {
    const good = new TestTool({ name: 'bash', schema: bashSchema });
    const broken = new TestTool({ name: 'broken', schema: { type: 'nonsense-type' } });
    const h = harness([calls(['bash', { command: 'ls' }], ['broken', {}]), text('ok')], {
      tools: [good, broken],
    });
    await h.run();
    expect(good.inputs).toEqual([{ command: 'ls' }]);
    expect(broken.inputs).toHaveLength(0);
    expect(toolMessages(h.context)[1]![1]).toMatch(/cannot run 'broken': the tool's input schema is invalid/);
  });

  it('a tool that returns a plain value instead of a promise still works', async () => {
    const odd = new TestTool({ name: 'odd' });
    (odd as unknown as { execute: () => unknown }).execute = () => ({ success: true, output: 'sync value' });
    const h = harness([calls(['odd']), text('ok')], { tools: [odd] });
    await h.run();
    expect(toolMessages(h.context)).toEqual([['call_1', 'sync value']]);
  });

  it('arguments that are not a JSON object are reported to the model', async () => {
    const response = {
      content: [],
      tool_calls: [{ id: 'x', name: 'now', arguments: '{not json' }],
    } as unknown as Parameters<typeof harness>[0][number];
    const tool = new TestTool({ name: 'now' });
    const h = harness([response, text('ok')], { tools: [tool] });
    await h.run();
    expect(tool.inputs).toHaveLength(0);
    expect(toolMessages(h.context)[0]![1]).toMatch(
      /^Error: the arguments of this call to 'now' are not valid JSON \(.+\): \{not json; the tool was not run\. Call 'now' again with its arguments as one JSON object\.$/,
    );
  });

  it('a call the provider marked invalid (invalid_arguments) is reported as tool:error and never run, whatever its arguments', async () => {
    const response = {
      content: [],
      tool_calls: [
        readToolCall('p', 'now', '{"a": 1'),
        // A hostile provider: invalid_arguments next to arguments that look fine; the mark wins.
        {
          id: 'q',
          name: 'now',
          arguments: { a: 1 },
          invalid_arguments: { raw: '"x"', problem: 'not_object', detail: 'string' },
        },
      ],
    } as Parameters<typeof harness>[0][number];
    const tool = new TestTool({ name: 'now' });
    const h = harness([response, text('ok')], { tools: [tool] });
    await h.run();
    const errors = h.recorder.getEvents('tool:error').map(([, data]) => data);
    expect(tool.inputs).toHaveLength(0);
    expect(toolMessages(h.context).map(([, c]) => c)).toEqual([
      expect.stringMatching(
        /^Error: the arguments of this call to 'now' are not valid JSON \(.+\): \{"a": 1;/,
      ),
      `Error: the arguments of this call to 'now' are JSON of a string, not an object: "x"; the tool was not run. Call 'now' again with its arguments as one JSON object.`,
    ]);
    expect(errors).toEqual([
      expect.objectContaining({
        tool_call_id: 'p',
        error: expect.objectContaining({ type: 'InvalidArguments' }),
      }),
      expect.objectContaining({
        tool_call_id: 'q',
        error: expect.objectContaining({ type: 'InvalidArguments' }),
      }),
    ]);
  });

  it('blank text is a zero-argument call; JSON of a non-object and non-objects are reported by what they are', async () => {
    const response = {
      content: [],
      tool_calls: [
        { id: 'a', name: 'now', arguments: ' \n ' },
        { id: 'b', name: 'now', arguments: '[1]' },
        { id: 'c', name: 'now', arguments: [1] },
        { id: 'd', name: 'now', arguments: 5 },
      ],
    } as unknown as Parameters<typeof harness>[0][number];
    const tool = new TestTool({ name: 'now' });
    const h = harness([response, text('ok')], { tools: [tool] });
    await h.run();
    expect(tool.inputs).toEqual([{}]);
    expect(toolMessages(h.context).map(([, c]) => c)).toEqual([
      'now ok',
      ...['[1]', '[1]', '5'].map(
        (raw) =>
          `Error: the arguments of this call to 'now' are JSON of ${raw === '5' ? 'a number' : 'an array'}, not an object: ${raw}; the tool was not run. Call 'now' again with its arguments as one JSON object.`,
      ),
    ]);
  });
});

describe("results without tool:post handlers (a call settles in its tool's promise turn)", () => {
  it('every call gets its result in the model order, whatever its tool does, run in order or at once', async () => {
    for (const profile of [undefined, FREE_PROFILE]) {
      for (const events of [[], ['tool:error']]) {
        const now = new TestTool({ name: 'now', profile });
        (now as unknown as { execute: () => unknown }).execute = () => {
          throw new Error('at once');
        };
        const later = new TestTool({
          name: 'later',
          profile,
          behave: async () => {
            await Promise.resolve();
            throw new Error('later');
          },
        });
        const odd = new TestTool({ name: 'odd', profile, behave: () => undefined as unknown as ToolResult });
        const plain = new TestTool({ name: 'plain', profile });
        const h = harness(
          [calls(['now'], ['later'], ['plain'], ['odd'], ['missing'], ['plain']), text('done')],
          { tools: [now, later, odd, plain], events },
        );
        expect(await h.run()).toBe('done');
        const results = toolMessages(h.context);
        expect(results.map(([id]) => id)).toEqual([
          'call_1',
          'call_2',
          'call_3',
          'call_4',
          'call_5',
          'call_6',
        ]);
        expect(results[0]![1]).toBe('Error executing tool: at once');
        expect(results[1]![1]).toBe('Error executing tool: later');
        expect(results[2]![1]).toBe('plain ok');
        expect(results[3]![1]).toMatch(/returned undefined instead of a result/);
        expect(results[4]![1]).toMatch(/Tool 'missing' not found/);
        expect(results[5]![1]).toBe('plain ok');
        const errors = h.recorder.getEvents('tool:error').map(([, data]) => data.tool_call_id);
        // Run in order, failures are reported in the model's order (the unknown tool before anything runs);
        // run at once, in the order the calls end.
        const expected = events.length === 0 ? [] : ['call_5', 'call_1', 'call_2', 'call_4'];
        expect(profile === undefined ? errors : [...errors].sort()).toEqual(
          profile === undefined ? expected : [...expected].sort(),
        );
      }
    }
  });
});

describe('a tool whose execution profile gives a bad timeout', () => {
  it('is not run and the model is told why; the other calls run', async () => {
    const bad = [10n, '5000', Number.NaN, -1];
    const tools = bad.map(
      (timeoutMs, i) =>
        new TestTool({ name: `bad${i}`, profile: { timeoutMs: timeoutMs as unknown as number } }),
    );
    const fine = new TestTool({ name: 'fine', profile: { timeoutMs: Number.POSITIVE_INFINITY } });
    const h = harness([calls(...tools.map((t) => [t.name] as [string]), ['fine']), text('done')], {
      tools: [...tools, fine],
    });
    expect(await h.run()).toBe('done');
    const results = toolMessages(h.context).map(([, content]) => content);
    expect(results.slice(0, 4)).toEqual(
      ['a number (10)', 'a string ("5000")', 'a number (NaN)', 'a number (-1)'].map(
        (what, i) =>
          `Error: 'bad${i}' has executionProfile.timeoutMs ${what}; it must be a number of milliseconds, 0 or more; the tool was not run. Fix the tool's execution profile.`,
      ),
    );
    expect(results[4]).toBe('fine ok'); // Infinity: no deadline
    for (const tool of tools) expect(tool.inputs).toHaveLength(0);
    expect(h.recorder.getEvents('tool:error').map(([, data]) => data.error)).toEqual(
      bad.map(() => expect.objectContaining({ type: 'InvalidToolProfile' })),
    );
  });
});

describe('per-tool timeout', () => {
  it('aborts the tool signal after executionProfile.timeoutMs and gives the model a timeout result', async () => {
    const hang = new TestTool({
      name: 'hang',
      profile: { timeoutMs: 20 },
      behave: (_input, { signal }) => untilAborted(signal, { success: true, output: 'should not be used' }),
    });
    const h = harness([calls(['hang']), text('ok')], { tools: [hang] });
    expect(await within(h.run(), 'the timeout')).toBe('ok');
    const [[, content]] = toolMessages(h.context) as [[string, string]];
    expect(content).toBe(
      "Error: Tool 'hang' timed out after 20 ms and was stopped. Try a smaller or faster request.",
    );
    expect(hang.signals[0]!.aborted).toBe(true);
    expect(h.recorder.getEvents('tool:error')[0]![1]).toMatchObject({ error: { type: 'TimeoutError' } });
  });

  it('uses the tool_timeout config (seconds) for tools without their own, even a tool that ignores its signal', async () => {
    const never = new TestTool({ name: 'never', behave: () => new Promise(() => {}) });
    const h = harness([calls(['never']), text('ok')], { config: { tool_timeout: 0.02 }, tools: [never] });
    expect(await within(h.run(), 'the timeout')).toBe('ok');
    expect(toolMessages(h.context)[0]![1]).toMatch(/timed out after 20 ms/);
  });

  it('disableTimeout opts a tool out of the default timeout', async () => {
    const timedOut = deferred();
    const patient = new TestTool({
      name: 'patient',
      profile: { ...FREE_PROFILE, disableTimeout: true },
      // Finishes only after the other call (same 20 ms timeout) has timed out.
      behave: async () => {
        await timedOut.promise;
        return { success: true, output: 'patient done' };
      },
    });
    const hang = new TestTool({
      name: 'hang',
      profile: FREE_PROFILE,
      behave: (_input, { signal }) => untilAborted(signal, { success: true, output: 'x' }),
    });
    const h = harness([calls(['patient'], ['hang']), text('ok')], {
      config: { tool_timeout: 0.02 },
      tools: [patient, hang],
    });
    h.coordinator.hooks.register('tool:error', () => {
      timedOut.resolve();
    });
    expect(await within(h.run(), 'the turn ended')).toBe('ok');
    expect(toolMessages(h.context)).toEqual([
      ['call_1', 'patient done'],
      ['call_2', expect.stringMatching(/timed out after 20 ms/)],
    ]);
    expect(patient.signals[0]!.aborted).toBe(false);
  });
});

describe('signals', () => {
  it('every tool gets a signal tied to the run: immediate cancellation aborts it', async () => {
    const started = deferred();
    const tool = new TestTool({
      name: 'wait',
      behave: (_input, { signal }) => {
        started.resolve();
        return untilAborted(signal, { success: false, error: { message: 'stopped' } });
      },
    });
    const h = harness([calls(['wait']), text('never')], { tools: [tool] });
    const turn = h.run();
    await within(started.promise, 'the tool started');
    expect(tool.signals[0]!.aborted).toBe(false);
    await h.coordinator.requestCancel({ immediate: true });
    await within(turn, 'the turn ended');
    expect(tool.signals[0]!.aborted).toBe(true);
  });

  it('an abort during a long tool run ends the turn with a result for every call', async () => {
    const longStarted = deferred();
    const log: { event: string; id: string }[] = [];
    const fileKey = (input: Record<string, unknown>) => [
      { key: `file:${String(input.path)}`, mode: 'write' as const },
    ];
    const done = new TestTool({ name: 'done', profile: FREE_PROFILE });
    const long = new TestTool({
      name: 'long',
      log: log as never,
      profile: { resourceKeys: fileKey },
      schema: { type: 'object', properties: { path: { type: 'string' } } },
      behave: (_input, { signal }) => {
        longStarted.resolve();
        return untilAborted(signal, { success: false, error: { message: 'interrupted' } });
      },
    });
    const ignorer = new TestTool({
      name: 'ignorer',
      profile: FREE_PROFILE,
      behave: () => new Promise(() => {}),
    });
    const h = harness(
      [
        calls(['done'], ['long', { path: '/x' }], ['long', { path: '/x' }], ['ignorer'], ['nope']),
        text('never'),
      ],
      { tools: [done, long, ignorer] },
    );
    const controller = new AbortController();
    controller.signal.addEventListener('abort', () => {
      void h.coordinator.requestCancel({ immediate: true });
    });
    const turn = h.run();
    await within(longStarted.promise, 'the long tool started');
    controller.abort();
    expect(await within(turn, 'the turn ended')).toBe('');
    expect(toolMessages(h.context)).toEqual([
      ['call_1', 'done ok'],
      ['call_2', cancelledContent('long')],
      ['call_3', cancelledContent('long')], // queued behind call_2 (same file): never started
      ['call_4', cancelledContent('ignorer')], // ignores its signal: the loop stops waiting
      ['call_5', expect.stringContaining("Error: Tool 'nope' not found")],
    ]);
    expect(long.inputs).toHaveLength(1);
    expect(h.context.messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(h.provider.requests).toHaveLength(1);
  });

  it('the provider gets the run signal; an immediate cancel during the call ends the turn without provider:error', async () => {
    const inCall = deferred();
    const h = harness([
      (_request) => {
        inCall.resolve();
        return new Promise(() => {}); // a provider that ignores its signal
      },
    ]);
    const turn = h.run();
    await within(inCall.promise, 'the provider call');
    expect(h.provider.options[0]!.signal).toBe(h.coordinator.cancellation.signal);
    await h.coordinator.requestCancel({ immediate: true });
    expect(await within(turn, 'the turn ended')).toBe('');
    expect(h.recorder.names()).not.toContain('provider:error');
    expect(h.recorder.names().slice(-2)).toEqual(['cancel:completed', 'orchestrator:complete']);
  });
});

describe('truncation of tool output', () => {
  it('output over max_tool_output_bytes keeps head and tail with a marker giving the full size', async () => {
    const big = `HEAD${'é'.repeat(60_000)}${'x'.repeat(10_000)}TAIL`;
    const total = Buffer.byteLength(big);
    const tool = new TestTool({ name: 'cat', behave: () => ({ success: true, output: big }) });
    const h = harness([calls(['cat']), text('ok')], {
      config: { max_tool_output_bytes: 4096 },
      tools: [tool],
    });
    await h.run();
    const [[, content]] = toolMessages(h.context) as [[string, string]];
    expect(content.startsWith('HEAD')).toBe(true);
    expect(content.endsWith('TAIL')).toBe(true);
    expect(content).toContain(`output was ${total.toLocaleString('en-US')} bytes`);
    expect(content).not.toContain('\uFFFD');
    expect(Buffer.byteLength(content)).toBeLessThan(4096 + 200);
    // Hooks see the full result.
    expect((h.recorder.getEvents('tool:post')[0]![1].result as { output: string }).output).toBe(big);
  });

  it('the default budget is 100 KiB', async () => {
    const fits = 'a'.repeat(100 * 1024);
    const over = 'b'.repeat(100 * 1024 + 1);
    const tool = new TestTool({
      name: 'cat',
      behave: (input) => ({ success: true, output: input.big ? over : fits }),
      schema: { type: 'object', properties: { big: { type: 'boolean' } } },
    });
    const h = harness([calls(['cat', { big: false }], ['cat', { big: true }]), text('ok')], {
      tools: [tool],
    });
    await h.run();
    const [[, a], [, b]] = toolMessages(h.context) as [[string, string], [string, string]];
    expect(a).toBe(fits);
    expect(b).toContain('truncated: output was 102,401 bytes');
  });
});

describe('aliases', () => {
  it("a name in the tool's aliases runs that tool; hooks see the mounted name", async () => {
    const tool = new TestTool({ name: 'read_file', aliases: ['Read', 'read'] });
    const h = harness([calls(['Read', {}], ['read', {}]), text('ok')], { tools: [tool] });
    await h.run();
    expect(tool.inputs).toHaveLength(2);
    expect(toolMessages(h.context).map(([, c]) => c)).toEqual(['read_file ok', 'read_file ok']);
    expect(h.recorder.getEvents('tool:pre').map(([, d]) => d.tool_name)).toEqual(['read_file', 'read_file']);
    // Only mounted names are offered to the model.
    expect(h.provider.requests[0]!.tools!.map((t) => t.name)).toEqual(['read_file']);
  });

  it('the tool_aliases config maps other names (and wins over a tool alias, never over a mounted name)', async () => {
    const read = new TestTool({ name: 'read_file' });
    const grep = new TestTool({ name: 'grep', aliases: ['Cat'] });
    const bash = new TestTool({ name: 'bash' });
    const h = harness([calls(['Read'], ['Cat'], ['bash']), text('ok')], {
      config: { tool_aliases: { Read: 'read_file', Cat: 'read_file', bash: 'read_file' } },
      tools: [read, grep, bash],
    });
    await h.run();
    expect(read.inputs).toHaveLength(2);
    expect(grep.inputs).toHaveLength(0);
    expect(bash.inputs).toHaveLength(1);
  });

  it('an unknown name gets an error listing the available tools', async () => {
    const h = harness([calls(['Write']), text('ok')], {
      tools: [new TestTool({ name: 'read_file' }), new TestTool({ name: 'bash' })],
    });
    await h.run();
    expect(toolMessages(h.context)[0]![1]).toBe(
      "Error: Tool 'Write' not found. Available tools: read_file, bash",
    );
  });

  it('tools mounted between turns are offered and found (the spec cache follows the Map)', async () => {
    const h = harness([calls(['late']), text('ok'), calls(['late']), text('ok')], {
      tools: [new TestTool({ name: 'early' })],
    });
    const first = h.provider.requests;
    await h.run();
    expect(first[0]!.tools!.map((t) => t.name)).toEqual(['early']);
    const specs = first[0]!.tools;
    expect(first[1]!.tools).toBe(specs); // unchanged Map: the same specs array
    const late = new TestTool({ name: 'late' });
    h.coordinator.mount('tools', late);
    await h.run();
    expect(first[2]!.tools!.map((t) => t.name)).toEqual(['early', 'late']);
    expect(late.inputs).toHaveLength(1);
  });
});

describe('approval (ask_user) through the coordinator', () => {
  function approval(answer: string, seen: ApprovalRequest[]): ApprovalProvider {
    return {
      async requestApproval(request) {
        seen.push(request);
        return answer;
      },
    };
  }

  it('an allow answer runs the tool; a deny answer does not', async () => {
    for (const [answer, runs] of [
      ['Allow', 1],
      ['Deny', 0],
    ] as const) {
      const seen: ApprovalRequest[] = [];
      const tool = new TestTool({ name: 'bash' });
      const h = harness([calls(['bash']), text('ok')], { tools: [tool] });
      h.coordinator.approval = approval(answer, seen);
      h.coordinator.hooks.register('tool:pre', () => ({ action: 'ask_user', approval_prompt: 'Run bash?' }));
      await h.run();
      expect(tool.inputs).toHaveLength(runs);
      expect(seen[0]).toMatchObject({ prompt: 'Run bash?', event: 'tool:pre', hook_name: 'bash' });
      if (runs === 0) expect(toolMessages(h.context)[0]![1]).toBe('Denied by hook: User denied: Run bash?');
    }
  });

  it('without an approval system the call is denied (fail closed)', async () => {
    const tool = new TestTool({ name: 'bash' });
    const h = harness([calls(['bash']), text('ok')], { tools: [tool] });
    h.coordinator.hooks.register('tool:pre', () => ({ action: 'ask_user' }));
    await h.run();
    expect(tool.inputs).toHaveLength(0);
    expect(toolMessages(h.context)[0]![1]).toBe('Denied by hook: No approval system available');
  });

  it('approvals of one response are asked one at a time, in the model order', async () => {
    const order: string[] = [];
    let open = 0;
    let maxOpen = 0;
    const h = harness([calls(['a', {}, 'x1'], ['b', {}, 'x2']), text('ok')], {
      tools: [
        new TestTool({ name: 'a', profile: FREE_PROFILE }),
        new TestTool({ name: 'b', profile: FREE_PROFILE }),
      ],
    });
    h.coordinator.approval = {
      async requestApproval(request) {
        open++;
        maxOpen = Math.max(maxOpen, open);
        order.push(request.prompt);
        await new Promise((resolve) => setImmediate(resolve));
        open--;
        return 'allow';
      },
    };
    h.coordinator.hooks.register('tool:pre', (_e, data) => ({
      action: 'ask_user',
      approval_prompt: `run ${String(data.tool_name)}?`,
    }));
    await h.run();
    expect(order).toEqual(['run a?', 'run b?']);
    expect(maxOpen).toBe(1);
  });
});

describe('hook injections and messages', () => {
  it('a durable prompt:submit injection lands before the user message; an ephemeral one goes with the first request', async () => {
    const h = harness([calls(['t']), text('ok')], { tools: [new TestTool({ name: 't' })] });
    h.coordinator.hooks.register('prompt:submit', () => ({
      action: 'inject_context',
      context_injection: 'durable',
    }));
    h.coordinator.hooks.register(
      'prompt:submit',
      () => ({ action: 'inject_context', context_injection: 'just once', ephemeral: true }),
      { priority: 10 },
    );
    await h.run('go');
    // Two injections merge (core): one of them ephemeral makes the merge ephemeral (OR), so nothing is stored.
    expect(h.context.messages[0]).toEqual({ role: 'user', content: 'go' });
    expect(h.provider.requests[0]!.messages.at(-1)).toEqual({
      role: 'system',
      content: 'durable\n\njust once',
    });
    expect(JSON.stringify(h.provider.requests[1]!.messages)).not.toContain('just once');

    const d = harness([text('ok')]);
    d.coordinator.hooks.register('prompt:submit', () => ({
      action: 'inject_context',
      context_injection: 'rules',
    }));
    await d.run('go');
    expect(d.context.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'rules'],
      ['user', 'go'],
      ['assistant', [{ type: 'text', text: 'ok' }]],
    ]);
  });

  it('a provider:request deny returns "Operation denied: <reason>"', async () => {
    const h = harness([text('never')]);
    h.coordinator.hooks.register('provider:request', () => ({ action: 'deny', reason: 'budget' }));
    expect(await h.run()).toBe('Operation denied: budget');
    expect(h.provider.requests).toHaveLength(0);
  });

  it("user_message from tool hooks reaches the display with the hook's source", async () => {
    const shown: [string, string, string][] = [];
    const h = harness([calls(['t'], ['u']), text('ok')], {
      tools: [new TestTool({ name: 't' }), new TestTool({ name: 'u' })],
    });
    h.coordinator.display = { showMessage: (m, level, source) => shown.push([m, level, source]) };
    h.coordinator.hooks.register('tool:pre', (_e, data) =>
      data.tool_name === 'u'
        ? { action: 'deny', reason: 'no', user_message: 'u blocked', user_message_level: 'warning' }
        : undefined,
    );
    h.coordinator.hooks.register('tool:post', () => ({
      action: 'inject_context',
      context_injection: 'fyi',
      user_message: 'tool ran',
      user_message_source: 'auditor',
    }));
    await h.run();
    expect(shown).toEqual([
      ['u blocked', 'warning', 'hook:u'],
      ['tool ran', 'info', 'hook:auditor'],
    ]);
  });
});

describe('tools that run sub-sessions (Tool.subSessions)', () => {
  it('a declaring tool is listed under the session it runs, whatever its name; a tool named delegate without it is not', async () => {
    const byAgent = (input: Record<string, unknown>) =>
      typeof input.agent === 'string' ? input.agent : undefined;
    const cases: [string, SubSessions | undefined, string][] = [
      ['delegate', { sessionName: byAgent }, 'explorer'],
      ['spawn_helper', { sessionName: byAgent }, 'explorer'],
      ['delegate', undefined, 'delegate'],
      ['spawn_helper', { sessionName: () => undefined }, 'spawn_helper'],
      ['spawn_helper', { sessionName: () => 42 as unknown as string }, 'spawn_helper'],
      [
        'spawn_helper',
        {
          sessionName: () => {
            throw new Error('broken declaration');
          },
        },
        'spawn_helper',
      ],
    ];
    for (const [name, subSessions, expected] of cases) {
      const seen: string[][] = [];
      const tool = Object.assign(new TestTool({ name }), subSessions === undefined ? {} : { subSessions });
      const h = harness([calls([name, { agent: 'explorer' }]), text('ok')], { tools: [tool] });
      tool.behave = () => {
        seen.push(h.coordinator.cancellation.runningToolNames);
        return { success: true, output: 'done' };
      };
      await h.run();
      expect(seen).toEqual([[expected]]);
      expect(toolMessages(h.context)).toEqual([['call_1', 'done']]);
    }
  });
});
