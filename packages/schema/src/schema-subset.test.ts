import { DATA_SCHEMA_NAMES, loadSchema } from '@amplifier/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSubsetCheck } from './schema-subset.js';

/** The options core's ajv runs with (schemas.ts). */
const OPTIONS = {
  allErrors: true,
  strict: false,
  allowUnionTypes: true,
  validateFormats: false,
  validateSchema: false,
} as const;

const KEYS = ['a', 'b', 'c', 'constructor'] as const;

const primitive = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, -1, 2, 0.5, 3, 'a', 'b', '', 'ab', 'x1'),
  fc.integer({ min: -5, max: 5 }),
  fc.string({ maxLength: 3 }),
);

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

/** Schemas of the subset: every keyword it handles, nested, with a `$defs` entry `$ref`s point to. */
const { schema } = fc.letrec<{ schema: unknown; keywords: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    tie('keywords'),
    fc.constant({ $ref: '#/$defs/d' }),
  ),
  keywords: fc.record(
    {
      type: fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1 })),
      enum: fc.array(primitive, { minLength: 1, maxLength: 4 }),
      const: primitive,
      minimum: fc.integer({ min: -3, max: 3 }),
      maximum: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(0.5)),
      exclusiveMinimum: fc.integer({ min: -3, max: 3 }),
      exclusiveMaximum: fc.integer({ min: -3, max: 3 }),
      multipleOf: fc.constantFrom(1, 2, 0.5, 0.1, 3),
      minLength: fc.nat(3),
      maxLength: fc.nat(3),
      pattern: fc.constantFrom('^a', 'b$', '^[a-c]*$', '\\d', '^.$', '\\p{L}'),
      items: tie('schema'),
      minItems: fc.nat(3),
      maxItems: fc.nat(3),
      minProperties: fc.nat(3),
      maxProperties: fc.nat(3),
      properties: fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { maxKeys: 3 }),
      required: fc.subarray([...KEYS]),
      additionalProperties: tie('schema'),
      allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }),
      anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }),
      oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }),
      not: tie('schema'),
      if: tie('schema'),
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: tie('schema'),
      else: tie('schema'),
      description: fc.string({ maxLength: 5 }),
      default: primitive,
      format: fc.constantFrom('uri', 'date-time', 'no-such-format'),
    },
    { requiredKeys: [] },
  ),
}));

/** A root with the `$defs` entry the `$ref`s name (a simple schema, so no ref loops). */
const rootSchema = fc
  .tuple(schema, fc.constantFrom<unknown>({ type: 'string', minLength: 1 }, { enum: [1, 'a'] }, true))
  .map(([root, d]) => (typeof root === 'object' && root !== null ? { ...root, $defs: { d } } : root));

/** Values that tell the keywords apart: JS-only numbers, surrogates, undefined members, sparse arrays. */
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    primitive,
    fc.constantFrom(
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      -0,
      1e21,
      0.3,
      2.5,
      '😀',
      'a😀',
      '\ud83d',
      'é',
      '12',
      'bab',
      undefined,
      // biome-ignore lint/suspicious/noSparseArray: a hole is read as undefined
      [1, , 2],
    ),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS, 'd'), tie('value'), { maxKeys: 4 }),
  ),
}));

function show(v: unknown): string {
  return typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? 'undefined');
}

describe('subset checks decide exactly as ajv does', () => {
  it('for random schemas of the subset and random values (both answers, since not/oneOf/if invert them)', () => {
    fc.assert(
      fc.property(rootSchema, fc.array(value, { maxLength: 12 }), (root, values) => {
        const check = buildSubsetCheck(root);
        expect(check, JSON.stringify(root)).toBeTypeOf('function');
        const validate = new Ajv2020(OPTIONS).compile(root as object);
        for (const v of values) {
          let expected: boolean;
          try {
            expected = validate(v);
          } catch {
            // ajv 8.20's generated code can crash on odd nestings (`if` whose schema has `not: true`
            // around `additionalProperties`: "props0 is not defined"): nothing to compare with.
            continue;
          }
          expect(check!(v), `${JSON.stringify(root)} / ${show(v)}`).toBe(expected);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('every shipped data schema is within the subset, so valid data never needs ajv', () => {
    const byUri = new Map(DATA_SCHEMA_NAMES.map((name) => [String(loadSchema(name).$id), loadSchema(name)]));
    const ajv = new Ajv2020(OPTIONS);
    for (const s of byUri.values()) ajv.addSchema(s);
    const samples: unknown[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'x' },
          { type: 'tool_call', id: 'c', name: 't' },
        ],
      },
      { role: 'tool', content: [{ type: 'thinking', thinking: 't', signature: null, visibility: 'user' }] },
      { role: 'x', content: [{ type: 'nope' }] },
      { content: [], tool_calls: [{ id: 'a', name: 'b', arguments: {} }], usage: null },
      { content: [], usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3, cost_usd: '0.10' } },
      { content: [], usage: { input_tokens: -1, output_tokens: 2, total_tokens: 3, cost_usd: '1e3' } },
      { session: { orchestrator: 'loop-basic', context: { module: 'context-simple', config: {} } } },
      { session: { orchestrator: '', context: { module: '' } }, tools: [{ module: 'x', config: [] }] },
      { module: 'tool-bash', type: 'tool' },
      { module: 'Tool', type: 'tool', extra: 1 },
      { action: 'inject_context', approval_timeout: 0, context_injection: 'x' },
      { success: true, output: { a: 1 } },
      { messages: [], tools: [{ name: 'x', parameters: {} }], response_format: { type: 'json_schema' } },
    ];
    for (const [uri, root] of byUri) {
      const check = buildSubsetCheck(root, uri, (other) => byUri.get(other));
      expect(check, uri).toBeTypeOf('function');
      const validate = ajv.getSchema(uri)!;
      for (const sample of samples)
        expect(check!(sample), `${uri} ${JSON.stringify(sample)}`).toBe(validate(sample));
    }
  });
});

describe('schemas outside the subset are left to ajv (undefined)', () => {
  const outside: Record<string, unknown> = {
    'an unknown keyword': { type: 'object', 'x-vendor': true },
    'a keyword the subset does not handle (prefixItems)': { prefixItems: [{ type: 'string' }] },
    uniqueItems: { type: 'array', uniqueItems: true },
    patternProperties: { patternProperties: { '^a': { type: 'string' } } },
    'nullable (ajv special-cases it)': { type: 'string', nullable: true },
    'tuple items (draft-07)': { items: [{ type: 'string' }] },
    'an object in enum (deep equality)': { enum: [{ a: 1 }] },
    'a non-finite limit': { minimum: Number.POSITIVE_INFINITY },
    'an invalid pattern': { pattern: '(' },
    'an unknown type name': { type: 'text' },
    'a nested $id': { properties: { a: { $id: 'https://x.test/a', type: 'string' } } },
    'a $ref to an unknown document': { $ref: 'https://x.test/other.json' },
    'a $ref that is not a pointer (anchor)': { $ref: '#name' },
    'a $ref to a missing $defs entry': { $ref: '#/$defs/missing' },
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
    'then that is not a schema': { then: 'string' },
    'a __proto__ property': JSON.parse('{"properties":{"__proto__":{"type":"string"}}}'),
  };
  for (const [what, s] of Object.entries(outside)) {
    it(what, () => {
      expect(buildSubsetCheck(s)).toBeUndefined();
    });
  }
});

describe('subset checks', () => {
  it('follow $ref cycles (a recursive tree schema)', () => {
    const tree = {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
    };
    const check = buildSubsetCheck(tree)!;
    expect(check({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] })).toBe(true);
    expect(check({ name: 'a', children: [{ name: 'b', children: [{}] }] })).toBe(false);
  });

  it('count string lengths in code points, as ajv does', () => {
    const check = buildSubsetCheck({ type: 'string', minLength: 2, maxLength: 2 })!;
    expect(check('😀😀')).toBe(true);
    expect(check('😀')).toBe(false);
    expect(check('abc')).toBe(false);
  });
});
