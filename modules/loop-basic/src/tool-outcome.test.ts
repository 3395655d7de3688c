/**
 * Whatever a tool returns or throws gets a specific result through the real
 * loop: a number is never taken for a timeout, a value is never taken for a
 * cancellation, and nothing crashes the turn.
 */
import type { Tool } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { calls, harness, text, toolMessages } from './__fixtures__/harness.js';
import { InvalidResult, resultOf, thrownMessage } from './tool-outcome.js';

const INVALID = (what: string): string =>
  `Error: Tool 'odd' returned ${what} instead of a result ({ success, output?, error? }), so whether it worked is unknown. Check what it did before calling it again.`;

interface Case {
  name: string;
  /** The tool's execute (not wrapped in an async function: what it returns is what the loop gets). */
  execute: () => unknown;
  content: string;
  /** The tool:error type, or undefined when the call succeeded or failed normally (tool:post seen). */
  errorType?: string;
}

const cases: Case[] = [
  // Values that are data: the tool's output.
  { name: 'a number (resolved)', execute: async () => 42, content: '42' },
  { name: 'a number (returned without a promise)', execute: () => 42, content: '42' },
  { name: 'zero', execute: async () => 0, content: '0' },
  { name: 'a negative number', execute: async () => -1, content: '-1' },
  { name: 'NaN', execute: async () => Number.NaN, content: 'NaN' },
  { name: 'Infinity', execute: async () => Number.POSITIVE_INFINITY, content: 'Infinity' },
  { name: 'a bigint', execute: async () => 10n, content: '10' },
  { name: 'a string', execute: async () => 'plain text', content: 'plain text' },
  { name: 'a boolean', execute: async () => false, content: 'false' },
  { name: 'an array', execute: async () => [1, 'two'], content: '[1,"two"]' },
  { name: 'an object without success', execute: async () => ({ files: ['a'] }), content: '{"files":["a"]}' },
  {
    name: 'an object shaped like a timeout outcome',
    execute: async () => ({ kind: 'timed_out', ms: 42 }),
    content: '{"kind":"timed_out","ms":42}',
  },
  {
    name: 'an object shaped like a cancellation outcome',
    execute: async () => ({ kind: 'stopped' }),
    content: '{"kind":"stopped"}',
  },
  {
    name: 'an object shaped like a thrown outcome',
    execute: async () => ({ kind: 'threw', thrown: 'x' }),
    content: '{"kind":"threw","thrown":"x"}',
  },
  // ToolResults and near-ToolResults.
  { name: 'a ToolResult', execute: async () => ({ success: true, output: 'fine' }), content: 'fine' },
  {
    name: 'a ToolResult with fields like the loop-internal markers',
    execute: async () => ({ success: true, output: 'mine', invalid: 'x', what: 'y', kind: 'timed_out' }),
    content: 'mine',
  },
  { name: 'output without success', execute: async () => ({ output: 'implicit' }), content: 'implicit' },
  {
    name: 'error without success',
    execute: async () => ({ error: { message: 'it broke' } }),
    content: 'it broke',
  },
  {
    name: 'a failed ToolResult whose error is a string',
    execute: async () => ({ success: false, error: 'disk full' }),
    content: 'disk full',
  },
  // Values that say nothing about the outcome.
  {
    name: 'undefined',
    execute: async () => undefined,
    content: INVALID('undefined'),
    errorType: 'InvalidToolResult',
  },
  { name: 'null', execute: async () => null, content: INVALID('null'), errorType: 'InvalidToolResult' },
  {
    name: 'a symbol',
    execute: async () => Symbol('s'),
    content: INVALID('a symbol'),
    errorType: 'InvalidToolResult',
  },
  {
    name: 'a function',
    execute: async () => () => 1,
    content: INVALID('a function'),
    errorType: 'InvalidToolResult',
  },
  {
    name: 'success that is not a boolean',
    execute: async () => ({ success: 'yes', output: 'maybe' }),
    content: INVALID('a result whose success is a string ("yes") (wanted true or false)'),
    errorType: 'InvalidToolResult',
  },
  {
    name: 'success that is a number',
    execute: async () => ({ success: 1 }),
    content: INVALID('a result whose success is a number (1) (wanted true or false)'),
    errorType: 'InvalidToolResult',
  },
  // Throws and rejections of every kind.
  {
    name: 'a returned (not thrown) Error',
    execute: async () => new TypeError('returned, not thrown'),
    content: 'Error executing tool: returned, not thrown',
    errorType: 'TypeError',
  },
  {
    name: 'a synchronous throw',
    execute: () => {
      throw new Error('sync boom');
    },
    content: 'Error executing tool: sync boom',
    errorType: 'Error',
  },
  {
    name: 'a thrown string',
    execute: async () => {
      throw 'just a string';
    },
    content: 'Error executing tool: just a string',
    errorType: 'string',
  },
  {
    name: 'a thrown number',
    execute: async () => {
      throw 42;
    },
    content: 'Error executing tool: 42',
    errorType: 'number',
  },
  {
    name: 'a thrown plain object with a message',
    execute: async () => {
      throw { message: 'object message', code: 7 };
    },
    content: 'Error executing tool: object message',
    errorType: 'object',
  },
  {
    name: 'a rejection with undefined',
    execute: () => Promise.reject(undefined),
    content: 'Error executing tool: the tool failed without an error message (it threw undefined)',
    errorType: 'undefined',
  },
  {
    name: 'a rejection with null',
    execute: () => Promise.reject(null),
    content: 'Error executing tool: the tool failed without an error message (it threw null)',
    errorType: 'object',
  },
  // Thenables.
  {
    name: 'a thenable that resolves with a number',
    // biome-ignore lint/suspicious/noThenProperty: a thenable is the case under test
    execute: () => ({ then: (resolve: (value: unknown) => void) => resolve(7) }),
    content: '7',
  },
  {
    name: 'a thenable that rejects with undefined',
    // biome-ignore lint/suspicious/noThenProperty: a thenable is the case under test
    execute: () => ({ then: (_: unknown, reject: (reason: unknown) => void) => reject(undefined) }),
    content: 'Error executing tool: the tool failed without an error message (it threw undefined)',
    errorType: 'undefined',
  },
  {
    name: 'a thenable whose then getter throws',
    execute: () =>
      Object.defineProperty({}, 'then', {
        get() {
          throw new Error('then getter');
        },
      }),
    content: 'Error executing tool: then getter',
    errorType: 'Error',
  },
  {
    name: 'a result whose success getter throws',
    execute: async () =>
      Object.defineProperty({}, 'success', {
        enumerable: true,
        get() {
          throw new Error('success getter');
        },
      }),
    content: 'Error executing tool: success getter',
    errorType: 'Error',
  },
];

function oddTool(execute: () => unknown): Tool {
  return { name: 'odd', description: 'returns anything', execute: execute as Tool['execute'] };
}

describe('whatever a tool returns or throws gets a specific result', () => {
  it.each(cases)('$name', async ({ execute, content, errorType }) => {
    // The default timeout (120 s) races every call: no return value may pass for it.
    const h = harness([calls(['odd']), text('answered')], { tools: [oddTool(execute)] });
    expect(await h.run()).toBe('answered');
    expect(toolMessages(h.context)).toEqual([['call_1', content]]);
    expect(content).not.toMatch(/timed out|cancelled/);
    const errors = h.recorder.getEvents('tool:error');
    const posts = h.recorder.getEvents('tool:post');
    if (errorType === undefined) {
      expect(errors).toEqual([]);
      expect(posts).toHaveLength(1);
    } else {
      expect(errors.map(([, data]) => data.error)).toEqual([{ type: errorType, msg: expect.any(String) }]);
      expect(posts).toEqual([]);
    }
  });

  it('a number equal to the timeout is still the output, and a real timeout is still a timeout', async () => {
    const h = harness([calls(['odd'], ['hang']), text('answered')], {
      config: { tool_timeout: 0.042 },
      tools: [
        oddTool(async () => 42),
        { name: 'hang', description: 'never ends', execute: () => new Promise(() => {}) },
      ],
    });
    expect(await h.run()).toBe('answered');
    expect(toolMessages(h.context)).toEqual([
      ['call_1', '42'],
      [
        'call_2',
        "Error: Tool 'hang' timed out after 42 ms and was stopped. Try a smaller or faster request.",
      ],
    ]);
  });
});

describe('resultOf and thrownMessage', () => {
  it('keeps a ToolResult as it is (no copy) and names what is not one', () => {
    const result = { success: true, output: { big: 'x' } };
    expect(resultOf(result)).toBe(result);
    expect(resultOf(undefined)).toEqual(new InvalidResult('undefined'));
    expect(resultOf({ success: 'x'.repeat(100) })).toEqual(
      new InvalidResult(`a result whose success is a string ("${'x'.repeat(40)}...") (wanted true or false)`),
    );
    // An object shaped like the loop's own marker is just a result.
    const shaped = { success: true, output: 'x', invalid: 'no', what: 'no' };
    expect(resultOf(shaped)).toBe(shaped);
  });

  it('reads a message from anything thrown, and never throws itself', () => {
    const unreadable = Object.defineProperty({}, 'message', {
      get() {
        throw new Error('no');
      },
    });
    expect(thrownMessage(unreadable)).toBe('[object Object]');
    expect(thrownMessage(new Error(''))).toBe('Error');
    expect(thrownMessage(Symbol('s'))).toBe('Symbol(s)');
  });
});
