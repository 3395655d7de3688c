import type { Tool } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { ToolTable } from './tool-table.js';

/** A tool whose input schema counts how often its `properties` are read (once per compilation). */
function countingTool(name: string): { tool: Tool; reads: () => number } {
  let reads = 0;
  const schema = {
    type: 'object',
    get properties() {
      reads++;
      return { path: { type: 'string' } };
    },
    required: ['path'],
  };
  const tool: Tool = {
    name,
    description: name,
    inputSchema: schema,
    execute: async () => ({ success: true }),
  };
  return { tool, reads: () => reads };
}

describe('ToolTable', () => {
  it("compiles a tool's input schema on its first validation, once, not when the table is built", () => {
    const a = countingTool('a');
    const b = countingTool('b');
    const table = new ToolTable();
    table.sync(
      new Map([
        ['a', a.tool],
        ['b', b.tool],
      ]),
    );
    expect(table.specs.map((s) => s.name)).toEqual(['a', 'b']);
    expect([a.reads(), b.reads()]).toEqual([0, 0]);
    const entry = table.lookup('a')!;
    const validate = entry.validate;
    if (typeof validate !== 'function') throw new Error(validate.error);
    expect(validate({ path: 'x' })).toEqual([]);
    expect(validate({})).toEqual([{ path: 'path', message: 'is required' }]);
    expect(typeof table.lookup('a')!.validate).toBe('function');
    expect([a.reads(), b.reads()]).toEqual([1, 0]);
  });

  it('an unusable schema is reported by validate, when the tool is called', () => {
    const broken: Tool = {
      name: 'broken',
      description: 'a tool with an unusable schema',
      inputSchema: { type: 'object', properties: { x: { type: 'nope' } } },
      execute: async () => ({ success: true }),
    };
    const table = new ToolTable();
    table.sync(new Map([['broken', broken]]));
    expect(table.lookup('broken')!.validate).toEqual({
      error: expect.stringContaining("the tool's input schema is invalid"),
    });
  });
});
