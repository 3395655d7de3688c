import { describe, expect, it } from 'vitest';
import { AmplifierError, type ErrorCode } from './errors.js';
import {
  failureType,
  HOOK_ACTIONS,
  HOOK_RESULT_DEFAULTS,
  type HookResult,
  hookResult,
  sanitizeForLlm,
  serializeToolOutput,
  stringifyJson,
  TOOL_FAILURES,
} from './results.js';
import { checkData } from './schemas.js';

describe('HookResult model (D)', () => {
  it('D38: every field has the reference default', () => {
    expect(hookResult()).toEqual({
      action: 'continue',
      data: null,
      reason: null,
      context_injection: null,
      context_injection_role: 'system',
      ephemeral: false,
      approval_prompt: null,
      approval_options: null,
      approval_timeout: 300,
      approval_default: 'deny',
      suppress_output: false,
      user_message: null,
      user_message_level: 'info',
      user_message_source: null,
      append_to_last_tool_result: false,
    });
    expect(HOOK_RESULT_DEFAULTS).toEqual(hookResult());
    expect(Object.isFrozen(HOOK_RESULT_DEFAULTS)).toBe(true);
  });

  it('D38: hookResult() keeps given fields, fills the rest and returns a new object', () => {
    const partial: HookResult = { action: 'deny', reason: 'no', approval_timeout: undefined };
    const full = hookResult(partial);
    expect(full.action).toBe('deny');
    expect(full.reason).toBe('no');
    expect(full.approval_timeout).toBe(300);
    expect(full).not.toBe(partial);
    expect(partial).toEqual({ action: 'deny', reason: 'no', approval_timeout: undefined });
  });

  it('D39: only the literal values are accepted for action, role, approval_default and level', () => {
    expect([...HOOK_ACTIONS].sort()).toEqual(['ask_user', 'continue', 'deny', 'inject_context', 'modify']);
    expect(checkData('hook-result', hookResult())).toEqual([]);
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'stop' }, 'action'],
      [{ context_injection_role: 'developer' }, 'context_injection_role'],
      [{ approval_default: 'maybe' }, 'approval_default'],
      [{ user_message_level: 'debug' }, 'user_message_level'],
    ];
    for (const [value, path] of cases) {
      const errors = checkData('hook-result', value);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.path).toBe(path);
      expect(errors[0]!.message).toMatch(/^must be one of /);
    }
  });
});

describe('ToolResult serialization (O)', () => {
  it('O136: object and array output becomes JSON, even on failure', () => {
    expect(serializeToolOutput({ success: true, output: { a: 1, b: [1, 2] } })).toBe('{"a":1,"b":[1,2]}');
    expect(serializeToolOutput({ success: false, output: { stderr: 'x', returncode: 2 } })).toBe(
      '{"stderr":"x","returncode":2}',
    );
    expect(serializeToolOutput({ success: true, output: [1, 'two'] })).toBe('[1,"two"]');
  });

  it('O136: other non-null output gives its string form, even on failure', () => {
    expect(serializeToolOutput({ success: true, output: 'plain' })).toBe('plain');
    expect(serializeToolOutput({ success: true, output: 42 })).toBe('42');
    expect(serializeToolOutput({ success: true, output: false })).toBe('false');
    expect(serializeToolOutput({ success: true, output: '' })).toBe('');
    expect(serializeToolOutput({ success: false, output: 'partial', error: { message: 'm' } })).toBe(
      'partial',
    );
  });

  it('O136: no output on failure gives the error message (auto-populated), "Error: Unknown error" or "Error: Failed"', () => {
    expect(serializeToolOutput({ success: false, error: { message: 'file not found' } })).toBe(
      'file not found',
    );
    expect(serializeToolOutput({ success: false, output: null, error: { message: 'm' } })).toBe('m');
    expect(serializeToolOutput({ success: false, error: { message: '' } })).toBe('Error: Unknown error');
    expect(serializeToolOutput({ success: false })).toBe('Error: Failed');
  });

  it('O136: no output on success gives "Success"', () => {
    expect(serializeToolOutput({ success: true })).toBe('Success');
    expect(serializeToolOutput({ success: true, output: null })).toBe('Success');
  });

  it('O136: control characters other than tab, LF and CR are stripped', () => {
    const raw = 'a\u0000b\u0007c\u0008d\u000Be\u000Cf\u000Eg\u001Fh\u007Fi\u0080j\u009Fk\tl\nm\rn';
    expect(serializeToolOutput({ success: true, output: raw })).toBe('abcdefghijk\tl\nm\rn');
    expect(serializeToolOutput({ success: true, output: { text: 'x\u0001y' } })).toBe('{"text":"x\\u0001y"}');
    expect(serializeToolOutput({ success: false, error: { message: 'bad\u0000byte' } })).toBe('badbyte');
  });

  it('O136: lone surrogates are stripped, valid pairs kept', () => {
    expect(sanitizeForLlm('a\uD800b')).toBe('ab');
    expect(sanitizeForLlm('a\uDC00b')).toBe('ab');
    expect(sanitizeForLlm('end\uD83D')).toBe('end');
    expect(sanitizeForLlm('\uDE00start')).toBe('start');
    expect(sanitizeForLlm('emoji \uD83D\uDE00 ok')).toBe('emoji 😀 ok');
    expect(sanitizeForLlm('\uDE00\uD83D')).toBe('');
    expect(serializeToolOutput({ success: true, output: 'x\uD800' })).toBe('x');
  });

  it('O136: clean text is returned as the same string (fast path)', () => {
    const text = 'nothing to strip\twith tabs\nand lines, ünïcödé and 😀';
    expect(sanitizeForLlm(text)).toBe(text);
    expect(sanitizeForLlm('')).toBe('');
  });

  it('O136: sanitization is repeatable (the global regex keeps no state between calls)', () => {
    for (let i = 0; i < 3; i++) expect(sanitizeForLlm('a\u0000b\u0000c')).toBe('abc');
  });

  it('stringifyJson never throws: bigint, cycles, Map, Set, Error, functions', () => {
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    expect(stringifyJson(cyclic)).toBe('{"n":"1","self":"[Circular]"}');
    expect(stringifyJson(new Map([['k', 1]]))).toBe('{"k":1}');
    expect(stringifyJson(new Set([1, 2]))).toBe('[1,2]');
    expect(stringifyJson(new TypeError('bad'))).toBe('{"name":"TypeError","message":"bad"}');
    expect(stringifyJson(undefined)).toBe('null');
    expect(stringifyJson({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
    expect(JSON.parse(stringifyJson({ f() {} })).f).toMatch(/^f\(\)/);
  });

  it('stringifyJson: a value seen twice without a cycle is serialized both times', () => {
    const shared = { x: 1 };
    expect(stringifyJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    expect(stringifyJson([shared, [shared]])).toBe('[{"x":1},[{"x":1}]]');
  });

  it('stringifyJson: cycles through arrays, Maps and Sets end in "[Circular]"', () => {
    const list: unknown[] = [1];
    list.push(list);
    expect(stringifyJson(list)).toBe('[1,"[Circular]"]');
    const map = new Map<string, unknown>();
    map.set('me', map);
    expect(stringifyJson({ map })).toBe('{"map":{"me":"[Circular]"}}');
    const set = new Set<unknown>();
    set.add(set);
    expect(stringifyJson(set)).toBe('["[Circular]"]');
    const deep: Record<string, unknown> = { a: { b: {} } };
    (deep.a as { b: Record<string, unknown> }).b.back = deep.a;
    expect(stringifyJson(deep)).toBe('{"a":{"b":{"back":"[Circular]"}}}');
  });
});

describe('TOOL_FAILURES: the failure types of whoever runs tools (the loop, the MCP server)', () => {
  it("keeps Amplifier's `error.type` names, one per code", () => {
    expect(
      Object.fromEntries(Object.entries(TOOL_FAILURES.codes).map(([code, row]) => [code, row.name])),
    ).toEqual({
      TOOL_INVALID_ARGUMENTS: 'InvalidArguments',
      TOOL_NOT_FOUND: 'ToolNotFoundError',
      TOOL_INPUT_INVALID: 'ValidationError',
      TOOL_TIMED_OUT: 'TimeoutError',
      TOOL_PROFILE_INVALID: 'InvalidToolProfile',
      TOOL_RESULT_INVALID: 'InvalidToolResult',
    });
    expect(failureType('TOOL_INVALID_ARGUMENTS')).toBe('InvalidArguments');
    // @ts-expect-error: not a failure of the table
    expect(() => failureType('TOOL_MISSING')).toThrow(TypeError);
  });

  it('a failure made as an error is an AmplifierError whose code is an ErrorCode, and keeps it across JSON', () => {
    const error = TOOL_FAILURES.create('TOOL_NOT_FOUND', { message: "Tool 'nope' not found" });
    const code: ErrorCode = error.code;
    expect(AmplifierError.is(error, code)).toBe(true);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'TOOL_NOT_FOUND', name: 'ToolNotFoundError' });
  });
});
