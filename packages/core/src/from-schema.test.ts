import { describe, expectTypeOf, it } from 'vitest';
import type { FromSchema, SchemaOf } from './from-schema.js';

const SCHEMA = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    timeout: { type: 'number', exclusiveMinimum: 0 },
    limit: { type: ['integer', 'null'] },
    mode: { enum: ['fast', 'safe'] },
    kind: { const: 'tool' },
    tags: { type: 'array', items: { type: 'string' } },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    target: {
      anyOf: [
        { type: 'string' },
        { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
      ],
    },
    choice: { oneOf: [{ enum: ['a', null] }, { type: 'integer' }] },
    both: { allOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'boolean' } } }] },
    open: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' } },
      additionalProperties: true,
    },
    closed: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false },
    denied: { type: 'array', items: { type: 'string' } },
    anything: true,
  },
} as const;

describe('FromSchema', () => {
  it('derives the type of a const schema: required and optional keys, unions, arrays, maps', () => {
    type Config = FromSchema<typeof SCHEMA>;
    expectTypeOf<Config['name']>().toEqualTypeOf<string>();
    expectTypeOf<Config['timeout']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Config['limit']>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<Config['mode']>().toEqualTypeOf<'fast' | 'safe' | undefined>();
    expectTypeOf<Config['kind']>().toEqualTypeOf<'tool' | undefined>();
    expectTypeOf<Config['tags']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<Config['headers']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<Config['target']>().toEqualTypeOf<string | { url: string } | undefined>();
    expectTypeOf<Config['choice']>().toEqualTypeOf<'a' | null | number | undefined>();
    expectTypeOf<NonNullable<Config['both']>>().toEqualTypeOf<{ a?: string } & { b?: boolean }>();
    expectTypeOf<Config['open']>().toEqualTypeOf<{ [key: string]: unknown; id: string } | undefined>();
    expectTypeOf<Config['closed']>().toEqualTypeOf<{ id?: string } | undefined>();
    expectTypeOf<Config['anything']>().toEqualTypeOf<unknown>();
    expectTypeOf<Config>().not.toHaveProperty('other');
  });

  it('a schema without properties or type reads as unknown; `false` as never', () => {
    expectTypeOf<FromSchema<{ description: 'x' }>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromSchema<{ allOf: [] }>>().toEqualTypeOf<unknown>();
    expectTypeOf<FromSchema<false>>().toEqualTypeOf<never>();
    expectTypeOf<FromSchema<{ type: 'object' }>>().toEqualTypeOf<Record<string, unknown>>();
  });

  it('`nullIsAbsent` types an optional key that allows null without it; required keys keep null', () => {
    const NULLS = {
      type: 'object',
      required: ['kept'],
      properties: {
        kept: { type: ['string', 'null'] },
        dropped: { type: ['string', 'null'] },
        nested: { type: ['object', 'null'], properties: { inner: { enum: ['x', null] } } },
      },
    } as const;
    type Wire = FromSchema<typeof NULLS, { nullIsAbsent: true }>;
    expectTypeOf<Wire>().toEqualTypeOf<{ kept: string | null; dropped?: string; nested?: { inner?: 'x' } }>();
    expectTypeOf<FromSchema<typeof NULLS>['dropped']>().toEqualTypeOf<string | null | undefined>();
  });

  it('`SchemaOf<T>` gives a node the type T (a `$ref`, a schema built by code)', () => {
    const REFS = {
      type: 'object',
      required: ['item'],
      properties: {
        item: { $ref: '#/$defs/item' } as SchemaOf<{ id: number }>,
        list: { type: 'array', items: { $ref: 'other.json' } as SchemaOf<'a' | 'b'> },
        built: {} as SchemaOf<readonly string[]>,
      },
    } as const;
    expectTypeOf<FromSchema<typeof REFS>>().toEqualTypeOf<{
      item: { id: number };
      list?: ('a' | 'b')[];
      built?: readonly string[];
    }>();
    expectTypeOf<FromSchema<SchemaOf<unknown>>>().toEqualTypeOf<unknown>();
  });
});
