/**
 * strictToolSchema: OpenAI strict mode's rules applied to tool schemas (zod's
 * output included), the keywords it refuses (with the path), and the nulls it
 * makes up taken back out of the model's arguments.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { strictToolSchema } from './strict-schema.js';

function strict(schema: Record<string, unknown>) {
  const result = strictToolSchema(schema);
  if (!result.ok) throw new Error(`refused: ${result.problem}`);
  return result;
}

describe('strictToolSchema', () => {
  it('closes every object, requires every property and makes the optional ones nullable', () => {
    const input = {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City' },
        days: { type: 'integer', minimum: 1 },
        units: { enum: ['c', 'f'] },
        where: {
          type: 'object',
          properties: { lat: { type: 'number' }, lon: { type: 'number' } },
          required: ['lat'],
        },
      },
      required: ['city'],
    };
    const before = structuredClone(input);
    const { schema } = strict(input);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City' },
        days: { type: ['integer', 'null'], minimum: 1 },
        units: { anyOf: [{ enum: ['c', 'f'] }, { type: 'null' }] },
        where: {
          type: ['object', 'null'],
          properties: { lat: { type: 'number' }, lon: { type: ['number', 'null'] } },
          required: ['lat', 'lon'],
          additionalProperties: false,
        },
      },
      required: ['city', 'days', 'units', 'where'],
      additionalProperties: false,
    });
    expect(input).toEqual(before);
  });

  it('takes the made-up nulls back out of the arguments, at any depth, and keeps real ones', () => {
    const { restore } = strict({
      type: 'object',
      properties: {
        a: { type: 'string' },
        note: { type: ['string', 'null'] },
        list: {
          type: 'array',
          items: {
            type: 'object',
            properties: { x: { type: 'number' }, y: { type: 'number' } },
            required: ['x'],
          },
        },
        ref: { $ref: '#/$defs/point' },
      },
      required: ['list'],
      $defs: { point: { type: 'object', properties: { z: { type: 'number' } } } },
    });
    expect(
      restore({
        a: null,
        note: null,
        list: [
          { x: 1, y: null },
          { x: 2, y: 3 },
        ],
        ref: { z: null },
      }),
    ).toEqual({ note: null, list: [{ x: 1 }, { x: 2, y: 3 }], ref: {} });
  });

  it('makes zod 4 output strict', () => {
    const json = z
      .object({ q: z.string(), limit: z.number().optional(), tags: z.array(z.string()).optional() })
      .toJSONSchema();
    const { schema, restore } = strict(json);
    expect(schema.required).toEqual(['q', 'limit', 'tags']);
    expect(schema.additionalProperties).toBe(false);
    expect(restore({ q: 'x', limit: null, tags: ['a'] })).toEqual({ q: 'x', tags: ['a'] });
  });

  it.each([
    [
      { type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } },
      'a.allOf: strict mode does not accept allOf',
    ],
    [{ type: 'object', properties: { a: { oneOf: [] } } }, 'a.oneOf'],
    [{ type: 'object', properties: { a: { type: 'string', not: {} } } }, 'a.not'],
    [{ type: 'object', if: {}, else: {} }, 'if: strict mode does not accept if'],
    [JSON.parse('{"type": "object", "then": {}}'), 'then: strict mode does not accept then'],
    [{ type: 'object', patternProperties: {} }, 'patternProperties'],
    [{ type: 'object', properties: { l: { type: 'array', prefixItems: [] } } }, 'l.prefixItems'],
    [
      { type: 'object', additionalProperties: true },
      'additionalProperties: strict mode needs closed objects',
    ],
    [{ type: 'object', additionalProperties: { type: 'string' } }, 'additionalProperties'],
    [
      { type: 'object', properties: { r: { $ref: 'https://example.com/x.json' } } },
      'r.$ref: strict mode only follows local',
    ],
    [{ type: 'string' }, 'the root must be an object schema'],
    [{ anyOf: [{ type: 'object' }] }, 'the root must be an object schema'],
    [{ type: 'object', properties: { a: 'string' } }, 'a: a schema must be an object, got string'],
    [
      { type: 'object', properties: { l: { type: 'array', items: [{ type: 'string' }] } } },
      'l.items: strict mode needs one schema',
    ],
  ])('refuses %j, saying where (%s)', (schema, problem) => {
    const result = strictToolSchema(schema);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.problem).toContain(problem);
  });

  it('leaves hostile arguments alone instead of crashing', () => {
    const { restore } = strict({
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'string' } } } },
    });
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 10_000; i++) {
      const next: Record<string, unknown> = {};
      at.a = next;
      at = next;
    }
    expect(() => restore(deep)).not.toThrow();
    expect(restore({ a: 'not an object', __proto__: null })).toEqual({ a: 'not an object' });
    expect(restore({ a: [null] })).toEqual({ a: [null] });
    // A key named __proto__ stays a key of the arguments, never their prototype.
    const proto = restore(JSON.parse('{"__proto__": {"polluted": true}, "a": null}'));
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect((proto as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
