import { describe, expect, it } from 'vitest';
import * as events from './events.js';
import { ALL_EVENTS, OBSERVABILITY_EVENTS_CHANNEL } from './events.js';
import * as publicApi from './index.js';

/** Every exported UPPER_CASE string constant that names an event (the channel name is not one). */
function eventConstants(): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(events)) {
    if (
      /^[A-Z][A-Z0-9_]*$/.test(name) &&
      typeof value === 'string' &&
      name !== 'OBSERVABILITY_EVENTS_CHANNEL'
    ) {
      out.push([name, value]);
    }
  }
  return out;
}

describe('events (Q)', () => {
  it('Q147: ALL_EVENTS holds the 42 canonical names, each exactly once', () => {
    expect(ALL_EVENTS).toHaveLength(42);
    expect(new Set(ALL_EVENTS).size).toBe(42);
    expect(Object.isFrozen(ALL_EVENTS)).toBe(true);
  });

  it('Q147: every exported event constant is in ALL_EVENTS, and the counts match', () => {
    const constants = eventConstants();
    expect(constants).toHaveLength(ALL_EVENTS.length);
    for (const [name, value] of constants) expect(ALL_EVENTS, name).toContain(value);
  });

  it('Q148: every name is lowercase namespace:action (underscores allowed, no empty part, no third part)', () => {
    for (const name of ALL_EVENTS) {
      expect(name).toMatch(/^[a-z][a-z_]*:[a-z][a-z_]*$/);
      expect(name.split(':').every((part) => part.length > 0)).toBe(true);
    }
  });

  it('Q149: module:on_session_ready_failed is in ALL_EVENTS and no :debug/:raw variant is', () => {
    expect(ALL_EVENTS).toContain('module:on_session_ready_failed');
    expect(ALL_EVENTS.filter((e) => /:(debug|raw)$/.test(e))).toEqual([]);
  });

  it('Q: the order and names follow the reference (HEAD order)', () => {
    expect(ALL_EVENTS.slice(0, 4)).toEqual([
      'session:start',
      'session:end',
      'session:fork',
      'session:resume',
    ]);
    expect(ALL_EVENTS.slice(8, 15)).toEqual([
      'provider:request',
      'provider:response',
      'provider:retry',
      'provider:error',
      'provider:throttle',
      'provider:tool_sequence_repaired',
      'provider:resolve',
    ]);
    expect(ALL_EVENTS.at(-3)).toBe('cancel:requested');
    expect(ALL_EVENTS.at(-2)).toBe('cancel:completed');
    expect(ALL_EVENTS.at(-1)).toBe('module:on_session_ready_failed');
    expect(events.TOOL_PRE).toBe('tool:pre');
    expect(events.CONTEXT_PRE_COMPACT).toBe('context:pre_compact');
    expect(events.LLM_RESPONSE).toBe('llm:response');
  });

  it('Q: the constants are reachable from the package entry as `events` and ALL_EVENTS', () => {
    expect(publicApi.events.SESSION_START).toBe('session:start');
    expect(publicApi.ALL_EVENTS).toBe(ALL_EVENTS);
    expect(OBSERVABILITY_EVENTS_CHANNEL).toBe('observability.events');
  });
});
