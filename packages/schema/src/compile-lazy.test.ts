/**
 * ajv is loaded and compiled only when some data is invalid (its errors are
 * the ones reported). This file's module state is its own (vitest isolates
 * test files), so nothing else has loaded ajv here before the first test.
 */

import { checkData, validateMountPlan } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { ajvLoaded, compileSchema } from './compile.js';

const TOOL_SCHEMA = {
  type: 'object',
  properties: { path: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1 } },
  required: ['path'],
  additionalProperties: false,
};

describe('ajv is loaded on first need', () => {
  it('valid data of subset schemas (mount plan, manifest, a tool input schema) never loads ajv', () => {
    const plan = {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: { script: [] } }],
      tools: [{ module: 'tool-bash' }],
    };
    expect(validateMountPlan(plan)).toEqual({ valid: true, errors: [], warnings: [] });
    expect(checkData('module-manifest', { module: 'tool-bash', type: 'tool' })).toEqual([]);
    expect(compileSchema(TOOL_SCHEMA)({ path: 'a.txt', limit: 3 })).toEqual([]);
    expect(ajvLoaded()).toBe(false);
  });

  it('invalid data loads ajv and reports its errors, with paths', () => {
    expect(compileSchema(TOOL_SCHEMA)({ path: '', limit: 0, extra: true })).toEqual([
      { path: 'extra', message: 'is not allowed (unknown key)' },
      { path: 'path', message: 'must not be empty' },
      { path: 'limit', message: 'must be >= 1' },
    ]);
    expect(ajvLoaded()).toBe(true);
    expect(checkData('module-manifest', { module: 'Bad Name', type: 'tool' })).toEqual([
      { path: 'module', message: 'must match pattern "^[a-z0-9][a-z0-9._-]*$"' },
    ]);
  });

  it('a schema outside the subset is compiled with ajv at once, and an invalid one still throws there', () => {
    expect(compileSchema({ type: 'array', uniqueItems: true })([1, 1])).toEqual([
      { path: '', message: 'must NOT have duplicate items (items ## 0 and 1 are identical)' },
    ]);
    expect(() => compileSchema({ type: 'object', pattern: '(' })).toThrow(/Invalid JSON Schema/);
  });
});
