/**
 * Every walker of outside data in the kernel, fed values nested far deeper
 * than any document and random deep/wide values: none throws, output below
 * MAX_DATA_DEPTH carries the marker, shallow values come out unchanged.
 */

import { depthOf, nestedValue, randomDeepValue } from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';
import { makeSession } from './__fixtures__/sessions.js';
import type { EventData } from './hooks.js';
import { MAX_DATA_DEPTH, MAX_DEPTH_MARKER, ownData } from './plain-data.js';
import { redactSecrets, truncateValues } from './redact.js';
import { stringifyJson } from './results.js';
import { checkData } from './schemas.js';

const DEPTHS = [MAX_DATA_DEPTH - 1, MAX_DATA_DEPTH + 1, 3_000, 5_000, 100_000];
const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);

function containsMarker(value: unknown): boolean {
  return JSON.stringify(value).includes(MAX_DEPTH_MARKER);
}

describe('copies: redactSecrets, truncateValues, ownData (keep)', () => {
  for (const depth of DEPTHS) {
    it(`${depth} levels (objects and arrays): no throw; the marker when deeper than the limit`, () => {
      for (const value of [nestedValue(depth), nestedValue(depth, { array: true })]) {
        const redacted = redactSecrets(value);
        const truncated = truncateValues(value);
        expect(depthOf(redacted)).toBeLessThanOrEqual(MAX_DATA_DEPTH);
        expect(containsMarker(redacted)).toBe(depth > MAX_DATA_DEPTH);
        expect(containsMarker(truncated)).toBe(depth > MAX_DATA_DEPTH);
        expect(() => ownData(value, { onLimit: 'keep' })).not.toThrow();
      }
    });
  }

  it('random deep/wide values (40 seeds): never throw; shallow ones are copied unchanged', () => {
    for (const seed of SEEDS) {
      const value = randomDeepValue(seed);
      const depth = depthOf(value);
      const truncated = truncateValues(value, Number.MAX_SAFE_INTEGER);
      const redacted = redactSecrets(value);
      expect(depthOf(redacted)).toBeLessThanOrEqual(MAX_DATA_DEPTH);
      if (depth <= MAX_DATA_DEPTH) expect(truncated).toEqual(value);
      else expect(containsMarker(truncated)).toBe(true);
    }
    for (const seed of SEEDS) {
      const shallow = randomDeepValue(seed, { depth: 40, width: 6 });
      expect(truncateValues(shallow, Number.MAX_SAFE_INTEGER)).toEqual(shallow);
      expect(ownData(shallow)).toEqual(shallow);
    }
  });
});

describe('stringifyJson', () => {
  for (const depth of DEPTHS) {
    it(`${depth} levels: valid JSON, the marker when deeper than the limit`, () => {
      const text = stringifyJson(nestedValue(depth));
      const parsed = JSON.parse(text);
      expect(depthOf(parsed)).toBeLessThanOrEqual(MAX_DATA_DEPTH);
      expect(text.includes(MAX_DEPTH_MARKER)).toBe(depth > MAX_DATA_DEPTH);
    });
  }

  it('random deep/wide values: valid JSON; shallow ones exactly as JSON.stringify writes them', () => {
    for (const seed of SEEDS) {
      const value = randomDeepValue(seed);
      expect(() => JSON.parse(stringifyJson(value))).not.toThrow();
      const shallow = randomDeepValue(seed, { depth: 30 });
      expect(stringifyJson(shallow)).toBe(JSON.stringify(shallow));
    }
  });

  it('a value that cannot be written at all (a throwing getter) gives a JSON string saying why', () => {
    const hostile = {
      get boom(): never {
        throw new Error('no access');
      },
    };
    expect(JSON.parse(stringifyJson(hostile))).toBe('[Unserializable: no access]');
  });
});

describe('schema checks', () => {
  for (const depth of [3_000, 100_000]) {
    it(`${depth} levels in a message's arguments: accepted (arguments are free-form), never a throw`, () => {
      const message = {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: '1', tool: 't', arguments: nestedValue(depth) }],
      };
      expect(checkData('message', message)).toEqual([]);
    });

    it(`${depth} levels in an invalid message: refused with its real problems, never a throw`, () => {
      const message = {
        role: 'robot',
        content: '',
        tool_calls: [{ id: '1', arguments: nestedValue(depth) }],
      };
      const errors = checkData('message', message).map((error) => `${error.path} ${error.message}`);
      expect(errors).toEqual([
        'role must be one of "system", "developer", "user", "assistant", "function", "tool"',
        'tool_calls[0].tool is required',
      ]);
    });
  }

  it('a mount plan and a hook result nested 100,000 levels deep get an answer, never a throw', () => {
    expect(checkData('mount-plan', nestedValue(100_000)).length).toBeGreaterThan(0);
    expect(checkData('hook-result', { data: nestedValue(100_000) })).toEqual([]);
  });
});

describe('the session', () => {
  it('session.raw with metadata nested 5,000 deep: session:start carries the redacted plan with the marker', async () => {
    const { session } = makeSession({
      session: {
        orchestrator: 'loop-basic',
        context: 'context-simple',
        raw: true,
        metadata: { deep: nestedValue(5_000) },
      },
      providers: [{ module: 'provider-mock', config: { api_key: 'sk-secret' } }],
    });
    const seen: EventData[] = [];
    session.coordinator.hooks.register('session:start', (_e, data) => {
      seen.push(data);
    });
    await session.execute('hi');
    const raw = seen[0]!.raw as { providers: { config: { api_key: string } }[] };
    expect(raw.providers[0]!.config.api_key).toBe('[REDACTED]');
    expect(containsMarker(raw)).toBe(true);
    await session.cleanup();
  });

  it('module config nested 100,000 deep and cyclic config reach the module as they are (the first levels copied)', async () => {
    const cyclic: Record<string, unknown> = { name: 'c' };
    cyclic.self = cyclic;
    const { session, loader } = makeSession({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: { deep: nestedValue(100_000), cyclic } }],
    });
    await session.initialize();
    const config = loader.loads.find((l) => l.id === 'provider-mock')!.config as {
      deep: unknown;
      cyclic: Record<string, unknown>;
    };
    expect(depthOf(config.deep)).toBe(100_000);
    expect(config.cyclic.self).toBe(config.cyclic);
    await session.cleanup();
  });
});
