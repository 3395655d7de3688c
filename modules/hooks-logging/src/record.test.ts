import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dynamicEvent, MAX_DATA_DEPTH, MAX_DEPTH_MARKER } from '@amplifier/core';
import { Redactor } from '@amplifier/secrets';
import { sanitizeValue } from '@amplifier/sessions';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from './config.js';
import { mount } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-record-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** Emit each payload as a `tool:pre` through a mounted logger; the records written, in order. */
async function logAll(...payloads: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const coordinator = createTestCoordinator({ bare: true });
  const file = path.join(tmp, 'events.jsonl');
  const cleanup = await mount(coordinator, { session_log_template: file });
  for (const payload of payloads) {
    const result = await coordinator.hooks.emit(dynamicEvent('tool:pre'), payload);
    expect(result.action).toBe('continue');
  }
  await cleanup();
  const lines = readFileSync(file, 'utf8').split('\n');
  expect(lines.pop()).toBe('');
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `{child: {child: ...}}` nested `depth` levels, built without recursion. */
function nestedObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123' };
  for (let i = 0; i < depth; i++) value = { child: value };
  return value;
}

function nestedArray(depth: number): unknown[] {
  let value: unknown[] = ['end'];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Levels of objects (or arrays) above the first non-container, and that value. */
function descend(value: unknown, next: (v: unknown) => unknown): { levels: number; bottom: unknown } {
  let levels = 0;
  let current = value;
  while (typeof current === 'object' && current !== null) {
    current = next(current);
    levels++;
  }
  return { levels, bottom: current };
}

describe('walks over event data are bounded (issue 16, point 7)', () => {
  it('a payload nested 100,000 deep is written, cut at MAX_DATA_DEPTH with the marker', async () => {
    const [objects, arrays] = await logAll(
      { tool_name: 'x', tool_input: nestedObject(100_000) },
      { tool_name: 'y', tool_input: { list: nestedArray(100_000) } },
    );
    const input = (objects!.data as { tool_input: unknown }).tool_input;
    const down = descend(input, (v) => (v as { child: unknown }).child);
    expect(down).toEqual({ levels: MAX_DATA_DEPTH, bottom: MAX_DEPTH_MARKER });
    const list = (arrays!.data as { tool_input: { list: unknown } }).tool_input.list;
    const deep = descend(list, (v) => (v as unknown[])[0]);
    expect(deep.bottom).toBe(MAX_DEPTH_MARKER);
    expect(deep.levels).toBe(MAX_DATA_DEPTH - 1);
  });

  it('sanitizeValue (the walk apps use for --redact) is bounded the same way and never throws', () => {
    const { value, rules } = sanitizeValue(nestedObject(100_000), {
      redactor: new Redactor(DEFAULTS.redaction, {}),
    });
    expect(descend(value, (v) => (v as { child: unknown }).child)).toEqual({
      levels: MAX_DATA_DEPTH,
      bottom: MAX_DEPTH_MARKER,
    });
    expect(rules).toEqual([]);
    // Shallow enough: the secret at the bottom is reached and redacted.
    const shallow = sanitizeValue(nestedObject(10), { redactor: new Redactor(DEFAULTS.redaction, {}) });
    expect(JSON.stringify(shallow.value)).toContain('"leaf":"[REDACTED:sk_key]"');
    expect(shallow.rules).toEqual(['sk_key']);
  });
});

describe('__proto__ in event data is data', () => {
  it('own __proto__ keys (JSON from the model) are written as keys, never as prototypes', async () => {
    const payload = JSON.parse(
      '{"tool_name": "t", "tool_input": {"__proto__": {"polluted": true, "password": "pw-under-proto"}, "a": 1}, "__proto__": {"top": 1}}',
    ) as Record<string, unknown>;
    const map = new Map<string, unknown>([['__proto__', { from: 'map' }]]);
    const [record, fromMap] = await logAll(payload, { tool_name: 'm', tool_input: map });
    const line = JSON.stringify(record);
    expect(line).toContain('"tool_input":{"__proto__":{"polluted":true,"password":"[REDACTED:key]"},"a":1}');
    expect(line).toContain('"__proto__":{"top":1}');
    expect(JSON.stringify(fromMap)).toContain('"tool_input":{"__proto__":{"from":"map"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
