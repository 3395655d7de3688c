/**
 * defineTool with zod 4, valibot (through @valibot/to-json-schema) and plain
 * JSON Schema: the JSON Schema the model sees, validation issues returned as
 * a tool failure, the inferred `execute` argument types, and define-time errors.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { ToolCallOptions } from './contracts.js';
import { defineTool, type StandardSchemaV1 } from './define-tool.js';
import { AmplifierError } from './errors.js';
import { failureType } from './results.js';

describe('defineTool with zod 4', () => {
  const weather = defineTool({
    name: 'weather',
    description: 'Weather of a city.',
    input: z.object({
      city: z.string().min(2),
      days: z.number().int().default(1),
      units: z.enum(['c', 'f']).optional(),
    }),
    execute: ({ city, days, units }) => `${city}: ${days} day(s) in ${units ?? 'c'}`,
  });

  it('gives the model zod’s own JSON Schema of the input, without $schema', () => {
    expect(weather.name).toBe('weather');
    expect(weather.description).toBe('Weather of a city.');
    expect(weather.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', default: 1 } },
      required: ['city'],
    });
    expect(weather.inputSchema).not.toHaveProperty('$schema');
  });

  it('runs execute with zod’s output (defaults applied) and wraps the return value as output', async () => {
    expect(await weather.execute({ city: 'Oslo' })).toEqual({ success: true, output: 'Oslo: 1 day(s) in c' });
  });

  it('returns every issue with its path as a ValidationError the model can act on, and does not run execute', async () => {
    let ran = 0;
    const tool = defineTool({
      name: 'book',
      description: 'Books seats.',
      input: z.object({ who: z.object({ name: z.string() }), seats: z.array(z.number().positive()) }),
      execute: () => {
        ran++;
        return 'booked';
      },
    });
    const result = await tool.execute({ who: { name: 7 }, seats: [1, -2] });
    expect(ran).toBe(0);
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe(failureType('TOOL_INPUT_INVALID'));
    const message = String(result.error?.message);
    expect(message).toContain("invalid input for tool 'book'");
    expect(message).toMatch(/who\.name: [^;]*string/i);
    expect(message).toMatch(/seats\[1\]: /);
    expect(message).toContain('fix the arguments and call it again');
  });

  it('refuses hostile and odd inputs without running execute (never throws)', async () => {
    const tool = defineTool({
      name: 'echo',
      description: 'Echo.',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const odd: unknown[] = [
      null,
      'text',
      42,
      [],
      { text: { toString: 'x' } },
      JSON.parse('{"__proto__":{"text":"x"}}'),
    ];
    for (const input of odd) {
      const result = await tool.execute(input as Record<string, unknown>);
      expect(result).toMatchObject({ success: false, error: { type: 'ValidationError' } });
    }
  });

  it('carries strict, the execution profile and aliases onto the Tool, and nothing it was not given', () => {
    const profile = { resourceKeys: () => [] };
    const tool = defineTool({
      name: 'strict_one',
      description: 'Strict.',
      input: z.object({}),
      strict: true,
      executionProfile: profile,
      aliases: ['StrictOne'],
      execute: () => null,
    });
    expect(tool).toMatchObject({ strict: true, executionProfile: profile, aliases: ['StrictOne'] });
    expect(Object.keys(weather).sort()).toEqual(['description', 'execute', 'inputSchema', 'name']);
  });

  it('passes the call options through to execute', async () => {
    const seen: ToolCallOptions[] = [];
    const tool = defineTool({
      name: 'opts',
      description: 'Options.',
      input: z.object({}),
      execute: (_input, options) => {
        seen.push(options);
        return null;
      },
    });
    const signal = new AbortController().signal;
    await tool.execute({}, { signal, toolCallId: 'call_1' });
    await tool.execute({});
    expect(seen).toEqual([{ signal, toolCallId: 'call_1' }, {}]);
  });

  it('lets a throw from execute reach the orchestrator as a failed call', async () => {
    const tool = defineTool({
      name: 'boom',
      description: 'Fails.',
      input: z.object({}),
      execute: async () => {
        throw new Error('disk full');
      },
    });
    await expect(tool.execute({})).rejects.toThrow('disk full');
  });

  it('turns a synchronous throw of execute or of validate into a rejection, never a throw', async () => {
    const syncThrow = defineTool({
      name: 'sync',
      description: 'Throws.',
      input: z.object({}),
      execute: () => {
        throw new Error('sync boom');
      },
    });
    const pending = syncThrow.execute({});
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow('sync boom');
    const badSchema = {
      '~standard': {
        version: 1,
        vendor: 'broken',
        validate: () => {
          throw new Error('validator crashed');
        },
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    } as StandardSchemaV1;
    const broken = defineTool({ name: 'b', description: 'B.', input: badSchema, execute: () => null });
    await expect(broken.execute({})).rejects.toThrow('validator crashed');
  });

  it('types execute’s input as the schema’s output', () => {
    defineTool({
      name: 't',
      description: 'Types.',
      input: z.object({ a: z.string(), n: z.number().default(3), tags: z.array(z.string()).optional() }),
      execute(input) {
        expectTypeOf(input).toEqualTypeOf<{ a: string; n: number; tags?: string[] | undefined }>();
      },
    });
    defineTool({
      name: 't2',
      description: 'Transforms.',
      input: z.object({ when: z.string().transform((s) => new Date(s)) }),
      execute({ when }) {
        expectTypeOf(when).toEqualTypeOf<Date>();
      },
    });
  });
});

describe('defineTool with valibot', () => {
  const schema = toStandardJsonSchema(
    v.object({ path: v.pipe(v.string(), v.minLength(1)), lines: v.optional(v.number()) }),
  );
  const read = defineTool({
    name: 'read',
    description: 'Reads lines.',
    input: schema,
    execute: ({ path, lines }) => ({ path, lines: lines ?? 10 }),
  });

  it('gives the model valibot’s JSON Schema and validates with valibot', async () => {
    expect(read.inputSchema).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 }, lines: { type: 'number' } },
      required: ['path'],
    });
    expect(await read.execute({ path: 'a.txt' })).toEqual({
      success: true,
      output: { path: 'a.txt', lines: 10 },
    });
    const bad = await read.execute({ path: '', lines: 'x' });
    expect(bad.success).toBe(false);
    expect(bad.error?.message).toMatch(/path: .*; lines: /);
  });

  it('types execute’s input from valibot', () => {
    defineTool({
      name: 'v',
      description: 'Types.',
      input: schema,
      execute(input) {
        expectTypeOf(input).toEqualTypeOf<{ path: string; lines?: number | undefined }>();
      },
    });
  });

  it('refuses at define time a schema without a JSON Schema converter, saying how to give one', () => {
    const plain = v.object({ path: v.string() });
    const define = () => defineTool({ name: 'raw', description: 'Raw.', input: plain, execute: () => null });
    expect(define).toThrow(/valibot schema has no JSON Schema converter/);
    try {
      define();
    } catch (error) {
      expect(AmplifierError.is(error, 'MODULE_VALIDATION_FAILED')).toBe(true);
      expect((error as { fix?: string }).fix).toMatch(/jsonSchema.*toStandardJsonSchema/);
    }
  });

  it('takes such a schema with an explicit jsonSchema, and still validates with it', async () => {
    const tool = defineTool({
      name: 'raw',
      description: 'Raw.',
      input: v.object({ path: v.string() }),
      jsonSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      execute: ({ path }) => path.toUpperCase(),
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    });
    expect(await tool.execute({ path: 'a' })).toEqual({ success: true, output: 'A' });
    expect(await tool.execute({ path: 1 })).toMatchObject({
      success: false,
      error: { type: 'ValidationError' },
    });
  });
});

describe('defineTool with a plain JSON Schema', () => {
  it('types execute’s input with FromSchema and gives the model the schema as is', async () => {
    const tool = defineTool({
      name: 'add',
      description: 'Adds.',
      input: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string' } },
        required: ['a', 'b'],
      },
      execute(input) {
        expectTypeOf(input).toEqualTypeOf<{ a: number; b: number; note?: string }>();
        return input.a + input.b;
      },
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string' } },
      required: ['a', 'b'],
    });
    expect(await tool.execute({ a: 1, b: 2 })).toEqual({ success: true, output: 3 });
  });
});

describe('defineTool with any Standard Schema', () => {
  /** A hand-written Standard Schema (async validation, issues with segment objects). */
  function custom(convert?: () => Record<string, unknown>): StandardSchemaV1<{ n: number }> {
    return {
      '~standard': {
        version: 1,
        vendor: 'custom',
        validate: async (value) =>
          typeof (value as { n?: unknown }).n === 'number'
            ? { value: value as { n: number } }
            : { issues: [{ message: 'must be a number', path: [{ key: 'n' }] }] },
        ...(convert && { jsonSchema: { input: convert, output: convert } }),
      },
    } as StandardSchemaV1<{ n: number }>;
  }

  it('awaits an async validate and reads path segments given as { key }', async () => {
    const tool = defineTool({
      name: 'c',
      description: 'Custom.',
      input: custom(() => ({ type: 'object', properties: { n: { type: 'number' } } })),
      execute: ({ n }) => n * 2,
    });
    expect(await tool.execute({ n: 2 })).toEqual({ success: true, output: 4 });
    expect((await tool.execute({})).error?.message).toContain('n: must be a number');
  });

  it('refuses a converter that throws, or a schema that is not an object, naming the tool', () => {
    expect(() =>
      defineTool({
        name: 'c',
        description: 'Custom.',
        input: custom(() => {
          throw new Error('bigint is not representable');
        }),
        execute: () => null,
      }),
    ).toThrow(
      /defineTool 'c': the custom schema cannot be converted to JSON Schema: bigint is not representable/,
    );
    expect(() =>
      defineTool({ name: 's', description: 'String.', input: z.string(), execute: () => null }),
    ).toThrow(/defineTool 's': a tool's input is an object, but the zod schema describes "string"/);
  });
});
