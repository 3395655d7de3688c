import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DataValidationError } from './errors.js';
import { hookResult } from './results.js';
import {
  assertData,
  checkData,
  DATA_SCHEMA_KEYWORDS,
  DATA_SCHEMA_NAMES,
  type DataSchemaName,
  formatDataErrors,
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

  it('every shipped schema uses only the keywords checkData decides on (or annotations)', () => {
    const annotations = ['$schema', '$id', '$defs', 'title', 'description', 'default'];
    const used = new Set<string>();
    const walk = (node: unknown, inMap: boolean): void => {
      if (Array.isArray(node)) for (const item of node) walk(item, false);
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (!inMap) used.add(key);
          walk(value, !inMap && (key === 'properties' || key === '$defs'));
        }
      }
    };
    for (const name of DATA_SCHEMA_NAMES) walk(loadSchema(name), false);
    const unknown = [...used].filter((k) => !DATA_SCHEMA_KEYWORDS.includes(k) && !annotations.includes(k));
    expect(unknown).toEqual([]);
  });

  it('each file is the schema written in TypeScript (after a change: build, then `pnpm --filter @amplifier/core run schemas`)', () => {
    for (const name of DATA_SCHEMA_NAMES) {
      const file = JSON.parse(fs.readFileSync(path.join(schemasDir, `${name}.json`), 'utf8'));
      expect(file, `schemas/${name}.json is out of date`).toStrictEqual(
        JSON.parse(JSON.stringify(loadSchema(name))),
      );
      expect(Object.keys(file), name).toEqual(Object.keys(loadSchema(name)));
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
});
