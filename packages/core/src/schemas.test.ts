import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { DataValidationError } from './errors.js';
import { hookResult } from './results.js';
import {
  assertData,
  checkData,
  compileSchema,
  DATA_SCHEMA_NAMES,
  type DataSchemaName,
  formatDataErrors,
  jsonPointerToPath,
  loadSchema,
} from './schemas.js';

const schemasDir = fileURLToPath(new URL('../schemas/', import.meta.url));

describe('shipped schemas', () => {
  it('every file in schemas/ is a registered data schema, and every name has a file', () => {
    const files = fs
      .readdirSync(schemasDir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''))
      .sort();
    expect(files).toEqual([...DATA_SCHEMA_NAMES].sort());
  });

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

  it('the schemas are importable from the package as @amplifier/core/schemas/<name>.json', () => {
    const require = createRequire(import.meta.url);
    const resolved = require.resolve('@amplifier/core/schemas/mount-plan.json');
    expect(path.normalize(resolved)).toBe(path.join(schemasDir, 'mount-plan.json'));
    expect(require('@amplifier/core/schemas/hook-result.json')).toEqual(loadSchema('hook-result'));
  });
});

describe('data types validate good samples and reject bad ones with paths', () => {
  const good: Record<DataSchemaName, unknown[]> = {
    message: [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'calling', visibility: 'user' },
          { type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'ls' } },
        ],
        tool_calls: [{ id: 'c1', tool: 'bash', arguments: { command: 'ls' } }],
        metadata: { provider: 'x' },
        extra_field: 'kept',
      },
      { role: 'tool', content: 'out', tool_call_id: 'c1' },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_call_id: 'c1', output: null },
          { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'reasoning', content: [], summary: [] },
        ],
      },
    ],
    'chat-request': [
      { messages: [] },
      {
        messages: [{ role: 'user', content: 'q' }],
        tools: [{ name: 'bash', parameters: { type: 'object' }, description: null }],
        response_format: { type: 'json_schema', schema: { type: 'object' }, strict: true },
        tool_choice: { type: 'tool', name: 'bash' },
        max_output_tokens: 100,
        timeout: 2.5,
        stop: ['\n\n'],
      },
      { messages: [], tool_choice: 'auto', response_format: { type: 'text' } },
    ],
    'chat-response': [
      { content: [] },
      {
        content: [{ type: 'text', text: 'hi' }],
        tool_calls: [{ id: 'c', name: 'grep', arguments: {} }],
        usage: {
          input_tokens: 1,
          output_tokens: 2,
          total_tokens: 3,
          cost_usd: '0.0012',
          cache_read_tokens: null,
        },
        degradation: { requested: 'a', actual: 'b', reason: 'c' },
        finish_reason: 'stop',
      },
    ],
    'tool-result': [
      { success: true },
      { success: true, output: { anything: [1, 2] } },
      { success: false, error: { message: 'nope', type: 'ValueError', extra: 1 } },
      { success: false, output: null, error: null },
    ],
    'hook-result': [{}, hookResult(), { action: 'inject_context', context_injection: 'x', extension_key: 1 }],
    'mount-plan': [
      { session: { orchestrator: 'loop-basic', context: 'context-simple' } },
      {
        session: {
          orchestrator: { module: 'loop-basic', source: './x', config: { max_iterations: 5 } },
          context: { module: 'context-simple' },
          injection_budget_per_turn: null,
          injection_size_limit: 10_240,
          metadata: { user: 'me' },
          raw: true,
        },
        providers: [{ module: 'provider-mock', config: {} }],
        tools: [],
        hooks: [{ module: 'hooks-logging' }],
        agents: { explorer: { description: 'x' } },
      },
    ],
    'module-manifest': [
      { module: 'tool-bash', type: 'tool' },
      { module: 'loop-basic', type: 'orchestrator', entry: './dist/index.js' },
    ],
  };

  const bad: Record<DataSchemaName, [unknown, { path: string; message: string }][]> = {
    message: [
      [
        { role: 'robot', content: 'x' },
        { path: 'role', message: expect.stringMatching(/^must be one of /) },
      ],
      [{ role: 'user' }, { path: 'content', message: 'is required' }],
      [
        { role: 'user', content: 5 },
        { path: 'content', message: 'must be string or array' },
      ],
      [
        { role: 'user', content: [{ type: 'text' }] },
        { path: 'content[0].text', message: 'is required' },
      ],
      [
        { role: 'user', content: [{ type: 'tool_call', id: 'c', name: 'x', input: 'not an object' }] },
        { path: 'content[0].input', message: 'must be object' },
      ],
      [
        { role: 'user', content: [{ type: 'video' }] },
        { path: 'content[0].type', message: expect.any(String) },
      ],
      [
        { role: 'assistant', content: '', tool_calls: [{ id: 'c', arguments: {} }] },
        { path: 'tool_calls[0].tool', message: 'is required' },
      ],
    ],
    'chat-request': [
      [{}, { path: 'messages', message: 'is required' }],
      [{ messages: [{ role: 'x', content: '' }] }, { path: 'messages[0].role', message: expect.any(String) }],
      [
        { messages: [], response_format: { type: 'json_schema' } },
        { path: 'response_format.schema', message: 'is required' },
      ],
      [
        { messages: [], tools: [{ name: 'x' }] },
        { path: 'tools[0].parameters', message: 'is required' },
      ],
      [
        { messages: [], timeout: 0 },
        { path: 'timeout', message: expect.any(String) },
      ],
    ],
    'chat-response': [
      [{}, { path: 'content', message: 'is required' }],
      [
        { content: [], usage: { input_tokens: 1, output_tokens: 1 } },
        { path: 'usage.total_tokens', message: 'is required' },
      ],
      [
        { content: [], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, cost_usd: 0.5 } },
        { path: 'usage.cost_usd', message: 'must be string or null' },
      ],
    ],
    'tool-result': [
      [{}, { path: 'success', message: 'is required' }],
      [{ success: 'yes' }, { path: 'success', message: 'must be boolean' }],
      [
        { success: false, error: {} },
        { path: 'error.message', message: 'is required' },
      ],
    ],
    'hook-result': [
      [{ action: 'halt' }, { path: 'action', message: expect.stringMatching(/^must be one of "continue"/) }],
      [{ approval_timeout: 0 }, { path: 'approval_timeout', message: expect.any(String) }],
      [{ ephemeral: 'yes' }, { path: 'ephemeral', message: 'must be boolean' }],
    ],
    'mount-plan': [
      [{}, { path: 'session', message: 'is required' }],
      [{ session: { context: 'c' } }, { path: 'session.orchestrator', message: 'is required' }],
      [
        { session: { orchestrator: '', context: 'c' } },
        { path: 'session.orchestrator', message: 'must not be empty' },
      ],
      [
        {
          session: { orchestrator: 'o', context: 'c' },
          tools: [{ module: 'a' }, { module: 'b', config: 'x' }],
        },
        { path: 'tools[1].config', message: 'must be object' },
      ],
    ],
    'module-manifest': [
      [
        { module: 'x', type: 'tool', extra: 1 },
        { path: 'extra', message: 'is not allowed (unknown key)' },
      ],
      [
        { module: 'Bad Name', type: 'tool' },
        { path: 'module', message: expect.any(String) },
      ],
      [
        { module: 'x', type: 'plugin' },
        { path: 'type', message: expect.stringMatching(/^must be one of /) },
      ],
    ],
  };

  for (const name of DATA_SCHEMA_NAMES) {
    it(`${name}: good samples pass`, () => {
      for (const sample of good[name]) expect(checkData(name, sample), JSON.stringify(sample)).toEqual([]);
    });
    it(`${name}: bad samples fail with a path and a message`, () => {
      for (const [sample, error] of bad[name])
        expect(checkData(name, sample), JSON.stringify(sample)).toEqual([error]);
    });
  }

  it('an unknown content block type reports one error, not one per block type', () => {
    const errors = checkData('message', { role: 'user', content: [{ text: 'no type' }] });
    expect(errors).toEqual([{ path: 'content[0].type', message: 'is required' }]);
  });

  it('allErrors: every problem is reported at once', () => {
    const errors = checkData('mount-plan', {
      session: { orchestrator: 5 },
      providers: 'x',
      tools: [{ config: [] }],
    });
    expect(errors.map((e) => `${e.path} ${e.message}`)).toEqual([
      'session.context is required',
      'session.orchestrator must be string or object',
      'providers must be array',
      'tools[0].module is required',
      'tools[0].config must be object',
    ]);
  });

  it('assertData throws a DataValidationError that lists every problem', () => {
    expect(() => assertData('tool-result', { success: true })).not.toThrow();
    try {
      assertData('tool-result', { error: 1 }, 'tool result');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DataValidationError);
      const e = error as DataValidationError;
      expect(e.code).toBe('DATA_INVALID');
      expect(e.errors).toHaveLength(2);
      expect(e.message).toBe(
        'Invalid tool result:\n  - success is required\n  - error must be object or null',
      );
    }
  });

  it('formatDataErrors writes one line per error; root errors say (root)', () => {
    expect(
      formatDataErrors([
        { path: '', message: 'must be object' },
        { path: 'a[0].b', message: 'is required' },
      ]),
    ).toBe('  - (root) must be object\n  - a[0].b is required');
  });

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
