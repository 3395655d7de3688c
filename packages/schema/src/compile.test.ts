import {
  checkData,
  DATA_SCHEMA_NAMES,
  type DataSchemaName,
  DataValidationError,
  loadSchema,
} from '@amplifier/core';
import { nestedValue } from '@amplifier/test-fixtures';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSchema, formatAjvErrors, jsonPointerToPath } from './compile.js';

describe("core's data schemas", () => {
  it('every shipped schema compiles, even under ajv strict mode (draft 2020-12)', () => {
    const strict = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false });
    for (const name of DATA_SCHEMA_NAMES) strict.addSchema(loadSchema(name));
    for (const name of DATA_SCHEMA_NAMES) {
      const schema = loadSchema(name);
      expect(schema.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id, name).toBe(`https://amplifier-ts.dev/schemas/v1/${name}.json`);
      expect(strict.getSchema(String(schema.$id)), name).toBeTypeOf('function');
      expect(() => checkData(name, {}), name).not.toThrow();
    }
  });

  it("core's checkData decides and words its problems exactly as ajv does, on samples and their random mutations", () => {
    const ajv = new Ajv2020({
      allErrors: true,
      strict: false,
      allowUnionTypes: true,
      validateFormats: false,
    });
    for (const name of DATA_SCHEMA_NAMES) ajv.addSchema(loadSchema(name));
    const sample: Record<DataSchemaName, unknown> = {
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'x' }],
        tool_calls: [{ id: 'a', tool: 't', arguments: {} }],
      },
      'chat-request': {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'x', parameters: {} }],
        response_format: { type: 'json_schema', schema: {} },
        tool_choice: { type: 'tool', name: 'x' },
        timeout: 3,
      },
      'chat-response': {
        content: [{ type: 'thinking', thinking: 't', signature: null }],
        usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
      },
      'tool-result': { success: false, error: { message: 'no', type: 'X' } },
      'hook-result': { action: 'ask_user', approval_timeout: 3, approval_options: ['a'] },
      'mount-plan': {
        session: {
          orchestrator: 'loop-basic',
          context: { module: 'context-simple' },
          injection_size_limit: 3,
        },
        tools: [{ module: 'tool-bash', config: {}, required: true }],
      },
      'module-manifest': { module: 'tool-bash', type: 'tool', aliases: ['x', { id: 'y', note: 'n' }] },
    };
    const odd = fc.constantFrom<unknown>(
      null,
      0,
      -1,
      1.5,
      '',
      'x',
      'Bad Name',
      true,
      [],
      {},
      [1],
      { type: 'tool' },
      { type: 'text' },
    );
    /** The sample with one value somewhere replaced by an odd one, or one key added or removed. */
    const mutate = (value: unknown, path: number[], replacement: unknown, drop: boolean): unknown => {
      if (path.length === 0 || typeof value !== 'object' || value === null) return replacement;
      const entries = Object.entries(value);
      if (entries.length === 0) return replacement;
      const [key, child] = entries[path[0]! % entries.length]!;
      const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
      if (drop && path.length === 1 && !Array.isArray(copy)) delete copy[key];
      else (copy as Record<string, unknown>)[key] = mutate(child, path.slice(1), replacement, drop);
      return copy;
    };
    let invalid = 0;
    const sortErrors = (errors: { path: string; message: string }[]) =>
      errors.map((e) => `${e.path} ${e.message}`).sort();
    fc.assert(
      fc.property(
        fc.constantFrom(...DATA_SCHEMA_NAMES),
        fc.array(fc.nat(6), { minLength: 1, maxLength: 5 }),
        odd,
        fc.boolean(),
        (name, path, replacement, drop) => {
          const value = mutate(sample[name], path, replacement, drop);
          const validate = ajv.getSchema(`https://amplifier-ts.dev/schemas/v1/${name}.json`)!;
          const expected = validate(value) ? [] : formatAjvErrors(validate.errors);
          if (expected.length > 0) invalid++;
          expect(sortErrors(checkData(name, value)), `${name} ${JSON.stringify(value)}`).toEqual(
            sortErrors(expected),
          );
        },
      ),
      { numRuns: 2000 },
    );
    // The mutations reach the keywords: most of the values compared are invalid.
    expect(invalid).toBeGreaterThan(1000);
  });
});

describe('jsonPointerToPath', () => {
  it('jsonPointerToPath turns JSON pointers into JS paths', () => {
    expect(jsonPointerToPath('')).toBe('');
    expect(jsonPointerToPath('/tools/2/config')).toBe('tools[2].config');
    expect(jsonPointerToPath('/a~1b/c~0d')).toBe('["a/b"]["c~d"]');
    expect(jsonPointerToPath('/x/with space')).toBe('x["with space"]');
    expect(jsonPointerToPath('/0')).toBe('[0]');
  });
});

describe('compileSchema', () => {
  it('compiles once per schema object (cached) and validates with paths', () => {
    const schema = {
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    };
    const validate = compileSchema(schema);
    expect(compileSchema(schema)).toBe(validate);
    expect(compileSchema({ ...schema })).not.toBe(validate);
    expect(validate({ path: 'a' })).toEqual([]);
    expect(validate({ limit: 0, extra: true })).toEqual([
      { path: 'path', message: 'is required' },
      { path: 'extra', message: 'is not allowed (unknown key)' },
      { path: 'limit', message: 'must be >= 1' },
    ]);
  });

  it('tolerates a draft-07 $schema, including draft-07-only keywords (tuple items, definitions)', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'https://example.com/tool-input.json',
      type: 'object',
      properties: {
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
        count: { $ref: '#/definitions/count' },
      },
      definitions: { count: { type: 'integer' } },
    };
    const validate = compileSchema(schema);
    expect(validate({ pair: ['a', 1], count: 2 })).toEqual([]);
    expect(validate({ pair: [1, 'a'] }).map((e) => e.path)).toEqual(['pair[0]', 'pair[1]']);
    expect(validate({ pair: ['a', 1, 2] })).toHaveLength(1);
    expect(validate({ count: 1.5 })).toEqual([{ path: 'count', message: 'must be integer' }]);
    // The same $id in another schema object does not clash with the first.
    expect(() => compileSchema({ ...schema })).not.toThrow();
  });

  it('accepts draft-04/06 and 2019-09 $schema values and a draft-07 schema without $schema', () => {
    for (const $schema of [
      'http://json-schema.org/draft-04/schema#',
      'http://json-schema.org/draft-06/schema#',
      'https://json-schema.org/draft/2019-09/schema',
      'https://json-schema.org/draft/2020-12/schema',
    ]) {
      const validate = compileSchema({ $schema, type: 'object', required: ['a'] });
      expect(validate({}), $schema).toEqual([{ path: 'a', message: 'is required' }]);
    }
    const legacy = compileSchema({ type: 'array', items: [{ type: 'string' }] });
    expect(legacy(['x'])).toEqual([]);
    expect(legacy([1])).toEqual([{ path: '[0]', message: 'must be string' }]);
  });

  it('a 2020-12 schema keeps 2020-12 semantics (prefixItems)', () => {
    const validate = compileSchema({ type: 'array', prefixItems: [{ type: 'string' }], items: false });
    expect(validate(['a'])).toEqual([]);
    expect(validate(['a', 'b'])).toHaveLength(1);
  });

  it('an invalid schema throws a DataValidationError naming the problem', () => {
    expect(() => compileSchema({ type: 'nonsense' })).toThrow(DataValidationError);
    expect(() => compileSchema({ type: 'nonsense' })).toThrow(/Invalid JSON Schema/);
  });

  it('an empty schema accepts anything (tools without inputSchema)', () => {
    const validate = compileSchema({});
    expect(validate({ any: 'thing' })).toEqual([]);
    expect(validate(null)).toEqual([]);
  });
});

describe('compileSchema with formats (ajv-formats)', () => {
  const schema = {
    type: 'object',
    properties: { url: { type: 'string', format: 'uri' }, at: { type: 'string', format: 'date-time' } },
  };

  it('checks format only when asked: uri and date-time are enforced with { formats: true }', () => {
    expect(compileSchema(schema)({ url: 'not a uri' })).toEqual([]);
    const validate = compileSchema(schema, { formats: true });
    expect(validate({ url: 'https://example.com/a?b=1', at: '2026-11-26T04:00:00Z' })).toEqual([]);
    expect(validate({ url: 'not a uri' })).toEqual([{ path: 'url', message: 'must match format "uri"' }]);
    expect(validate({ at: 'yesterday' })).toEqual([{ path: 'at', message: 'must match format "date-time"' }]);
  });

  it('ignores a format ajv-formats does not know, and honours an older draft', () => {
    expect(compileSchema({ type: 'string', format: 'made-up' }, { formats: true })('x')).toEqual([]);
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'string',
      format: 'email',
    };
    expect(compileSchema(draft07, { formats: true })('nobody')).toEqual([
      { path: '', message: 'must match format "email"' },
    ]);
  });
});

describe('deep values and schemas', () => {
  const recursive = {
    $defs: { node: { type: 'object', properties: { a: { $ref: '#/$defs/node' } } } },
    $ref: '#/$defs/node',
  };
  const unique = { type: 'array', uniqueItems: true };

  for (const depth of [3_000, 100_000]) {
    it(`${depth} levels through a recursive schema, uniqueItems and the message schema: errors, never a throw`, () => {
      const value = nestedValue(depth);
      const recursiveErrors = compileSchema(recursive)(value);
      // Valid or reported as too deep: either way an answer, not a RangeError.
      for (const error of recursiveErrors) expect(error.message).toMatch(/nested too deeply to validate/);
      expect(() => compileSchema(unique)([nestedValue(depth), nestedValue(depth)])).not.toThrow();
      expect(() =>
        checkData('message', {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: '1', tool: 't', arguments: value }],
        }),
      ).not.toThrow();
    });
  }

  it('a tool input schema nested 100,000 levels deep is refused as invalid, not a crash', () => {
    const schema = nestedValue(100_000, { key: 'not', leaf: { type: 'string' } }) as Record<string, unknown>;
    let outcome: unknown;
    try {
      outcome = compileSchema(schema)('x');
    } catch (error) {
      outcome = error;
    }
    expect(outcome instanceof RangeError).toBe(false);
  });
});
