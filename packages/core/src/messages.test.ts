import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blockToolCalls,
  type ContentBlock,
  fromMessageToolCall,
  fromToolCallBlock,
  type Message,
  type MessageToolCall,
  messageToolCalls,
  parseToolArguments,
  readToolCall,
  responseText,
  responseToolCalls,
  type ToolCall,
  type ToolCallBlock,
  toMessageToolCall,
  toToolCallBlock,
} from './messages.js';
import { checkData } from './schemas.js';

describe('responseText', () => {
  it('joins text blocks with a blank line and never includes thinking or tool calls', () => {
    expect(
      responseText([
        { type: 'thinking', thinking: 'secret plan' },
        { type: 'text', text: 'first' },
        { type: 'tool_call', id: 'c', name: 'bash', input: {} },
        { type: 'text', text: 'second' },
      ]),
    ).toBe('first\n\nsecond');
  });

  it('passes a string through and gives "" for nothing', () => {
    expect(responseText('already text')).toBe('already text');
    expect(responseText(undefined)).toBe('');
    expect(responseText([])).toBe('');
    expect(responseText([{ type: 'redacted_thinking', data: 'x' }])).toBe('');
  });

  it('skips null and malformed blocks instead of throwing (odd messages from callers)', () => {
    const odd = [null, { type: 'text', text: 'kept' }, { type: 'text' }] as unknown as ContentBlock[];
    expect(responseText(odd)).toBe('kept');
  });
});

describe('responseToolCalls and blockToolCalls', () => {
  const blocks: ContentBlock[] = [
    { type: 'text', text: 'let me look' },
    { type: 'tool_call', id: 'c1', name: 'read_file', input: { file_path: 'a' } },
    { type: 'tool_call', id: 'c2', name: 'grep', input: {} },
  ];

  it('turns tool_call blocks into ToolCalls, in order; none or no content gives []', () => {
    expect(blockToolCalls(blocks)).toEqual([
      { id: 'c1', name: 'read_file', arguments: { file_path: 'a' } },
      { id: 'c2', name: 'grep', arguments: {} },
    ]);
    expect(blockToolCalls([{ type: 'text', text: 'x' }])).toEqual([]);
    expect(blockToolCalls(undefined)).toEqual([]);
  });

  it('prefers response.tool_calls; falls back to the blocks when it is missing or empty', () => {
    const given = [{ id: 'x', name: 'bash', arguments: { command: 'ls' } }];
    expect(responseToolCalls({ content: blocks, tool_calls: given })).toBe(given);
    expect(responseToolCalls({ content: blocks, tool_calls: [] }).map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(responseToolCalls({ content: blocks }).map((c) => c.id)).toEqual(['c1', 'c2']);
  });
});

describe('tool call converters', () => {
  const call: ToolCall = { id: 'c1', name: 'bash', arguments: { command: 'ls', options: { all: true } } };

  it('write the wire shapes with exactly their fields, in the same JSON as before', () => {
    expect(JSON.stringify(toMessageToolCall(call))).toBe(
      '{"id":"c1","tool":"bash","arguments":{"command":"ls","options":{"all":true}}}',
    );
    expect(JSON.stringify(toToolCallBlock(call))).toBe(
      '{"type":"tool_call","id":"c1","name":"bash","input":{"command":"ls","options":{"all":true}}}',
    );
    const message = {
      role: 'assistant',
      content: [toToolCallBlock(call)],
      tool_calls: [toMessageToolCall(call)],
    };
    expect(checkData('message', message)).toEqual([]);
  });

  it('round trip: ToolCall -> wire -> ToolCall and wire -> ToolCall -> wire give equal objects', () => {
    expect(fromMessageToolCall(toMessageToolCall(call))).toEqual(call);
    expect(fromToolCallBlock(toToolCallBlock(call))).toEqual(call);
    const stored: MessageToolCall = { id: 'c2', tool: 'grep', arguments: { pattern: 'x' } };
    expect(toMessageToolCall(fromMessageToolCall(stored))).toEqual(stored);
    const block: ToolCallBlock = { type: 'tool_call', id: 'c3', name: 'glob', input: {} };
    expect(toToolCallBlock(fromToolCallBlock(block))).toEqual(block);
    // Across the two wire shapes too (what a provider does with an assistant message).
    expect(toToolCallBlock(fromMessageToolCall(stored))).toEqual({
      type: 'tool_call',
      id: 'c2',
      name: 'grep',
      input: { pattern: 'x' },
    });
  });

  it('round trips any call of JSON data', () => {
    const calls = fc.record({
      id: fc.string(),
      name: fc.string(),
      arguments: fc.dictionary(fc.string(), fc.jsonValue()),
    });
    fc.assert(
      fc.property(calls, (c) => {
        expect(fromMessageToolCall(toMessageToolCall(c))).toEqual(c);
        expect(fromToolCallBlock(toToolCallBlock(c))).toEqual(c);
        const stored = JSON.parse(JSON.stringify(toMessageToolCall(c))) as MessageToolCall;
        expect(fromMessageToolCall(stored)).toEqual(JSON.parse(JSON.stringify(c)));
      }),
    );
  });

  it('share the arguments object (no copy) and copy no other field', () => {
    const extra = { ...call, provider_state: 'x' } as ToolCall;
    expect(toMessageToolCall(extra).arguments).toBe(call.arguments);
    expect(toToolCallBlock(extra).input).toBe(call.arguments);
    expect(Object.keys(toMessageToolCall(extra))).toEqual(['id', 'tool', 'arguments']);
    expect(Object.keys(toToolCallBlock(extra))).toEqual(['type', 'id', 'name', 'input']);
    const visible: ToolCallBlock = {
      type: 'tool_call',
      id: 'v',
      name: 'n',
      input: {},
      visibility: 'internal',
    };
    expect(Object.keys(fromToolCallBlock(visible))).toEqual(['id', 'name', 'arguments']);
  });

  it('missing or null arguments become {}; other odd values pass through unparsed', () => {
    const bare = { id: 'c', name: 'now' } as unknown as ToolCall;
    expect(toMessageToolCall(bare)).toEqual({ id: 'c', tool: 'now', arguments: {} });
    expect(toToolCallBlock(bare)).toEqual({ type: 'tool_call', id: 'c', name: 'now', input: {} });
    const stored = { id: 'c', tool: 'now', arguments: null } as unknown as MessageToolCall;
    expect(fromMessageToolCall(stored)).toEqual({ id: 'c', name: 'now', arguments: {} });
    const block = { type: 'tool_call', id: 'c', name: 'now' } as unknown as ToolCallBlock;
    expect(fromToolCallBlock(block)).toEqual({ id: 'c', name: 'now', arguments: {} });
    // Parsing is parseToolArguments' job, not the converters'.
    const text = { id: 'c', name: 'now', arguments: '{"a":1}' } as unknown as ToolCall;
    expect(toMessageToolCall(text).arguments).toBe('{"a":1}');
  });

  it('keep a `__proto__` key of the arguments as an own key', () => {
    const args = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    for (const out of [
      toMessageToolCall({ id: 'c', name: 'n', arguments: args }).arguments,
      toToolCallBlock({ id: 'c', name: 'n', arguments: args }).input,
      fromMessageToolCall({ id: 'c', tool: 'n', arguments: args }).arguments,
      fromToolCallBlock({ type: 'tool_call', id: 'c', name: 'n', input: args }).arguments,
    ]) {
      expect(Object.hasOwn(out, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    }
  });
});

describe('parseToolArguments', () => {
  const parseMessage = (text: string): string => {
    try {
      JSON.parse(text);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`${text} is JSON`);
  };

  it('no arguments: undefined, null, empty or blank text give {}', () => {
    for (const raw of [undefined, null, '', '   ', '\n\t ']) {
      expect(parseToolArguments(raw), JSON.stringify(raw)).toEqual({ ok: true, arguments: {} });
    }
  });

  it('an object is taken as it is (the same object); JSON text of an object is parsed', () => {
    const args = { path: 'a.txt' };
    const parsed = parseToolArguments(args);
    expect(parsed.ok && parsed.arguments).toBe(args);
    expect(parseToolArguments('{"path":"a.txt","n":[1,{"x":null}]}')).toEqual({
      ok: true,
      arguments: { path: 'a.txt', n: [1, { x: null }] },
    });
    expect(parseToolArguments('  {"a":1}\n')).toEqual({ ok: true, arguments: { a: 1 } });
  });

  it("text that is not JSON: invalid_json with the parser's message", () => {
    for (const text of ['{"a":', '{not json', "{'a':1}", '{"a":1} trailing']) {
      expect(parseToolArguments(text), text).toEqual({
        ok: false,
        problem: 'invalid_json',
        detail: parseMessage(text),
      });
    }
  });

  it('JSON text or a value that is not an object: not_object with what was there', () => {
    const cases: [unknown, string][] = [
      ['[1,2]', 'array'],
      ['"text"', 'string'],
      ['42', 'number'],
      ['true', 'boolean'],
      ['null', 'null'],
      [[1, 2], 'array'],
      [42, 'number'],
      [false, 'boolean'],
      [10n, 'bigint'],
      [() => 1, 'function'],
    ];
    for (const [raw, detail] of cases) {
      expect(parseToolArguments(raw), String(raw)).toEqual({ ok: false, problem: 'not_object', detail });
    }
  });

  it('a `__proto__` key stays own data: no prototype is set, nothing is polluted', () => {
    const parsed = parseToolArguments(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"a":1}',
    );
    if (!parsed.ok) throw new Error('expected ok');
    const args = parsed.arguments;
    expect(Object.keys(args)).toEqual(['__proto__', 'constructor', 'a']);
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect((args as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(args)).toBe(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"a":1}',
    );
  });

  it('never throws; ok means a non-array object; JSON of any object reads back equal', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.json()), (raw) => {
        const parsed = parseToolArguments(raw);
        if (parsed.ok) {
          expect(typeof parsed.arguments).toBe('object');
          expect(Array.isArray(parsed.arguments)).toBe(false);
        } else {
          expect(['invalid_json', 'not_object']).toContain(parsed.problem);
        }
      }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (args) => {
        expect(parseToolArguments(JSON.stringify(args))).toEqual({
          ok: true,
          arguments: JSON.parse(JSON.stringify(args)),
        });
      }),
    );
  });

  it('reads deeply nested JSON without a stack overflow', () => {
    const depth = 100_000;
    const parsed = parseToolArguments(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    expect(parsed.ok).toBe(true);
  });
});

describe("readToolCall (the one place a call's arguments are parsed)", () => {
  it('object arguments, JSON text of an object, and nothing give a call without invalid_arguments', () => {
    const args = { path: 'a.txt' };
    expect(readToolCall('c1', 'read_file', args)).toEqual({ id: 'c1', name: 'read_file', arguments: args });
    expect(readToolCall('c1', 'read_file', args).arguments).toBe(args);
    expect(readToolCall('c1', 'read_file', '{"path":"a.txt"}')).toEqual({
      id: 'c1',
      name: 'read_file',
      arguments: args,
    });
    for (const none of [undefined, null, '', '  \n']) {
      expect(readToolCall('c1', 'now', none)).toEqual({ id: 'c1', name: 'now', arguments: {} });
    }
  });

  it('anything else is a typed failure: arguments {}, invalid_arguments with the raw text and why; never a made-up object', () => {
    const cases: [unknown, string, 'invalid_json' | 'not_object', string][] = [
      ['{"path":', '{"path":', 'invalid_json', ''],
      ['[1,2]', '[1,2]', 'not_object', 'array'],
      ['"a.txt"', '"a.txt"', 'not_object', 'string'],
      ['null', 'null', 'not_object', 'null'],
      ['7', '7', 'not_object', 'number'],
      [[1, 2], '[1,2]', 'not_object', 'array'],
      [false, 'false', 'not_object', 'boolean'],
      [42, '42', 'not_object', 'number'],
    ];
    for (const [raw, text, problem, detail] of cases) {
      const call = readToolCall('c1', 'read_file', raw);
      expect(call.arguments).toEqual({});
      expect(call.invalid_arguments).toMatchObject({ raw: text, problem });
      if (detail !== '') expect(call.invalid_arguments!.detail).toBe(detail);
      else expect(call.invalid_arguments!.detail).not.toBe('');
      expect(checkData('chat-response', { content: [], tool_calls: [call] })).toEqual([]);
    }
  });

  it('keeps at most 2,000 characters of what was sent; a value that cannot be written does not throw', () => {
    const long = readToolCall('c1', 'x', `{${'a'.repeat(50_000)}`);
    expect(long.invalid_arguments!.raw.length).toBe(2001);
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(readToolCall('c1', 'x', cyclic).invalid_arguments).toMatchObject({
      problem: 'not_object',
      detail: 'array',
    });
    expect(readToolCall('c1', 'x', 10n).invalid_arguments).toMatchObject({
      problem: 'not_object',
      detail: 'bigint',
    });
  });
});

describe('messageToolCalls (the calls of a stored message, each once)', () => {
  it('reads tool_calls, then tool_call blocks with other ids, in order', () => {
    const message: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_call', id: 'a', name: 'read_file', input: { path: 'a' } },
        { type: 'tool_call', id: 'c', name: 'grep', input: { pattern: 'x' } },
      ],
      tool_calls: [
        { id: 'a', tool: 'read_file', arguments: { path: 'a' } },
        { id: 'b', tool: 'bash', arguments: { command: 'ls' } },
      ],
    };
    expect(messageToolCalls(message)).toEqual([
      { id: 'a', name: 'read_file', arguments: { path: 'a' } },
      { id: 'b', name: 'bash', arguments: { command: 'ls' } },
      { id: 'c', name: 'grep', arguments: { pattern: 'x' } },
    ]);
  });

  it('a Python-written message (both places), a block-only one, and a ToolCall-shaped entry are read alike', () => {
    const python = {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'a', name: 'read_file', input: { path: 'a' } }],
      tool_calls: [{ id: 'a', tool: 'read_file', arguments: { path: 'a' } }],
    } as Message;
    const blocksOnly = { ...python, tool_calls: undefined } as unknown as Message;
    const named = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'a', name: 'read_file', arguments: { path: 'a' } }],
    };
    for (const message of [python, blocksOnly, named as unknown as Message]) {
      expect(messageToolCalls(message)).toEqual([{ id: 'a', name: 'read_file', arguments: { path: 'a' } }]);
    }
  });

  it('stored history is checked: entries without a string id, null entries and odd content are skipped', () => {
    const odd = {
      role: 'assistant',
      content: [null, { type: 'tool_call', id: 7, name: 'x', input: {} }],
      tool_calls: [null, { id: '', tool: 'x', arguments: {} }, { tool: 'x' }],
    } as unknown as Message;
    expect(messageToolCalls(odd)).toEqual([]);
    expect(messageToolCalls({ role: 'user', content: 'hi' })).toEqual([]);
  });
});
