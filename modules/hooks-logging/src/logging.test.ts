import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALL_EVENTS, type Cleanup, dynamicEvent, OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { projectSlug } from '@amplifier/sessions';
import { createTestCoordinator, RecordingLogger, type TestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getEventLogger, logPath, mount, onSessionReady } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

interface Setup {
  coordinator: TestCoordinator;
  cleanup: Cleanup;
  file: string;
}

async function setup(
  config: Record<string, unknown> = {},
  prepare?: (c: TestCoordinator) => void,
): Promise<Setup> {
  const coordinator = createTestCoordinator({ bare: true });
  coordinator.registerCapability('session.working_dir', path.join(tmp, 'project'));
  prepare?.(coordinator);
  const cleanup = await mount(coordinator, {
    session_log_template: path.join(tmp, 'logs/{project}/{session_id}/events.jsonl'),
    ...config,
  });
  return {
    coordinator,
    cleanup,
    file: path.join(tmp, 'logs', projectSlug(path.join(tmp, 'project')), 'test-session', 'events.jsonl'),
  };
}

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('hooks-logging checklist (reference section 13)', () => {
  it('1: one emit of an ALL_EVENTS event appends exactly one JSON line under the project/session path', async () => {
    const { coordinator, cleanup, file } = await setup();
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), { tool_name: 'bash' });
    await cleanup();
    const records = lines(file);
    expect(records).toHaveLength(1);
    expect(records[0]?.event).toBe('tool:pre');
  });

  it('1: the default path is <AMPLIFIER_HOME>/projects/<slug>/sessions/<id>/events.jsonl', () => {
    const previous = process.env.AMPLIFIER_HOME;
    process.env.AMPLIFIER_HOME = '/x/home';
    try {
      expect(
        logPath(
          '{amplifier_home}/projects/{project}/sessions/{session_id}/events.jsonl',
          'abc',
          '/home/u/app',
        ),
      ).toBe('/x/home/projects/-home-u-app/sessions/abc/events.jsonl');
    } finally {
      if (previous === undefined) delete process.env.AMPLIFIER_HOME;
      else process.env.AMPLIFIER_HOME = previous;
    }
    expect(projectSlug('/home/u/app')).toBe('-home-u-app');
  });

  it('2: record has ts (= emit timestamp), lvl, schema, event, session_id on top and the rest under data', async () => {
    const { coordinator, cleanup, file } = await setup();
    let seen = '';
    coordinator.hooks.register('tool:post', (_e, data) => {
      seen = data.timestamp as string;
    });
    await coordinator.hooks.emit(dynamicEvent('tool:post'), { tool_name: 'bash', result: { ok: true } });
    await cleanup();
    const [record] = lines(file);
    expect(record).toMatchObject({
      ts: seen,
      lvl: 'INFO',
      schema: { name: 'amplifier.log', ver: '1.0.0' },
      event: 'tool:post',
      session_id: 'test-session',
      data: { parent_id: null, tool_name: 'bash', result: { ok: true } },
    });
    expect(record?.data).not.toHaveProperty('timestamp');
    expect(Object.keys(record ?? {}).slice(0, 4)).toEqual(['ts', 'lvl', 'schema', 'event']);
  });

  it('3: an error field or "error" in the event name gives lvl ERROR', async () => {
    const { coordinator, cleanup, file } = await setup();
    await coordinator.hooks.emit(dynamicEvent('tool:error'), { tool_name: 'x' });
    await coordinator.hooks.emit(dynamicEvent('tool:post'), { error: { msg: 'boom' } });
    await coordinator.hooks.emit(dynamicEvent('tool:post'), { status: 'error' });
    await coordinator.hooks.emit(dynamicEvent('tool:post'), { lvl: 'DEBUG', error: 'x' });
    await cleanup();
    expect(lines(file).map((r) => r.lvl)).toEqual(['ERROR', 'ERROR', 'ERROR', 'DEBUG']);
  });

  it('4: an event without a session_id writes nothing', async () => {
    const { coordinator, cleanup } = await setup();
    coordinator.hooks.setDefaultFields({});
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), { tool_name: 'x' });
    await cleanup();
    expect(getEventLogger(coordinator)).toBeUndefined();
    expect(() => readFileSync(path.join(tmp, 'logs'))).toThrow();
  });

  it('5: llm:stream_block_delta is excluded by default; exclude_events: [] logs it', async () => {
    const first = await setup({ additional_events: ['llm:stream_block_delta', 'llm:stream_block_start'] });
    await first.coordinator.hooks.emit(dynamicEvent('llm:stream_block_delta'), {});
    await first.coordinator.hooks.emit(dynamicEvent('llm:stream_block_start'), {});
    await first.cleanup();
    expect(lines(first.file).map((r) => r.event)).toEqual(['llm:stream_block_start']);
    rmSync(first.file);
    const second = await setup({ additional_events: ['llm:stream_block_delta'], exclude_events: [] });
    await second.coordinator.hooks.emit(dynamicEvent('llm:stream_block_delta'), {});
    await second.cleanup();
    expect(lines(second.file).map((r) => r.event)).toEqual(['llm:stream_block_delta']);
  });

  it('5: exclude globs: * and ? wildcards, several patterns OR-ed, case-sensitive', async () => {
    const events = [
      'llm:stream_block_delta',
      'llm:stream_block_start',
      'llm:stream_aborted',
      'llm:response',
      'tool:pre',
    ];
    const { coordinator, cleanup, file } = await setup({
      additional_events: events,
      exclude_events: ['llm:stream_*', 'tool:pr?', 'LLM:RESPONSE'],
    });
    for (const event of events) await coordinator.hooks.emit(dynamicEvent(event), {});
    await cleanup();
    expect(lines(file).map((r) => r.event)).toEqual(['llm:response']);
  });

  it('6: an event contributed and in ALL_EVENTS (and additional_events) gives one line per emit', async () => {
    const { coordinator, cleanup, file } = await setup(
      { additional_events: ['tool:pre', 'custom:thing'] },
      (c) => {
        c.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, 'a', () => ['tool:pre', 'custom:thing']);
        c.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, 'b', () => 'custom:thing');
      },
    );
    await onSessionReady(coordinator);
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), {});
    await coordinator.hooks.emit(dynamicEvent('custom:thing'), {});
    await cleanup();
    expect(lines(file).map((r) => r.event)).toEqual(['tool:pre', 'custom:thing']);
  });

  it('7: strip_raw removes data.raw', async () => {
    const { coordinator, cleanup, file } = await setup({ strip_raw: true });
    await coordinator.hooks.emit(dynamicEvent('llm:request'), { raw: { big: 1 }, model: 'm' });
    await cleanup();
    expect(lines(file)[0]?.data).toEqual({ parent_id: null, model: 'm' });
  });

  it('8: values that are not JSON are written as strings or plain objects without failing', async () => {
    const { coordinator, cleanup, file } = await setup();
    const circular: Record<string, unknown> = { name: 'c' };
    circular.self = circular;
    class Decimalish {
      toJSON(): string {
        return '1.50';
      }
    }
    const throwing = {
      get bad(): string {
        throw new Error('nope');
      },
    };
    await coordinator.hooks.emit(dynamicEvent('tool:post'), {
      big: 10n ** 20n,
      decimal: new Decimalish(),
      err: new Error('kaput'),
      buf: Buffer.from('hello'),
      map: new Map([['k', 1]]),
      set: new Set([1, 2]),
      circular,
      fn: function named() {},
      sym: Symbol('s'),
      nan: Number.NaN,
      und: undefined,
      date: new Date(0),
      throwing,
    });
    await cleanup();
    const data = lines(file)[0]?.data as Record<string, unknown>;
    expect(data.big).toBe('100000000000000000000');
    expect(data.decimal).toBe('1.50');
    expect(data.err).toMatchObject({ name: 'Error', message: 'kaput' });
    expect(data.buf).toMatchObject({ type: 'Buffer', length: 5 });
    expect(data.map).toEqual({ k: 1 });
    expect(data.set).toEqual([1, 2]);
    expect(data.circular).toEqual({ name: 'c', self: '[Circular]' });
    expect(data.fn).toBe('[Function named]');
    expect(data.sym).toBe('Symbol(s)');
    expect(data.nan).toBe('NaN');
    expect(data).not.toHaveProperty('und');
    expect(data.date).toBe('1970-01-01T00:00:00.000Z');
    expect(data.throwing).toEqual({ bad: '[Unserializable: nope]' });
  });

  it('9: the handler always continues and never throws', async () => {
    const { coordinator, cleanup } = await setup();
    const evil = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys');
        },
      },
    );
    const result = await coordinator.hooks.emit(dynamicEvent('tool:pre'), { evil });
    expect(result.action).toBe('continue');
    const logger = getEventLogger(coordinator);
    expect(logger?.handle('tool:pre', undefined as never)).toBeUndefined();
    await cleanup();
  });

  it('10: events declared through observability.events (capability and contributions) are logged', async () => {
    const { coordinator, cleanup, file } = await setup({}, (c) => {
      c.registerCapability(OBSERVABILITY_EVENTS_CHANNEL, ['cap:event']);
      c.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, 'late', () => ['late:event']);
    });
    await coordinator.hooks.emit(dynamicEvent('cap:event'), {});
    await onSessionReady(coordinator);
    await coordinator.hooks.emit(dynamicEvent('late:event'), {});
    await cleanup();
    expect(lines(file).map((r) => r.event)).toEqual(['cap:event', 'late:event']);
  });

  it('10: auto_discover false ignores declared events', async () => {
    const { coordinator, cleanup } = await setup({ auto_discover: false }, (c) => {
      c.registerCapability(OBSERVABILITY_EVENTS_CHANNEL, ['cap:event']);
    });
    await onSessionReady(coordinator);
    expect(getEventLogger(coordinator)?.events).toEqual([...ALL_EVENTS]);
    await cleanup();
  });
});

describe('configuration', () => {
  it('rejects wrong types with the path; unknown keys are warned about and ignored', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    await expect(mount(coordinator, { exclude_events: 'x', bogus: 1 })).rejects.toThrow(
      /exclude_events must be array/,
    );
    await expect(mount(coordinator, { redaction: { patterns: ['('] } })).rejects.toThrow(
      /redaction.patterns/,
    );
    const cleanup = await mount(coordinator, { bogus: 1, session_log_template: path.join(tmp, 'e.jsonl') });
    await cleanup();
    expect(logger.problemsSince()).toContain("hooks-logging: unknown config key 'bogus' is ignored");
  });

  it('registers handlers at the configured priority under the name hooks-logging', async () => {
    const { coordinator, cleanup } = await setup({ priority: 5 });
    let order: string[] = [];
    coordinator.hooks.register(
      'tool:pre',
      () => {
        order = Object.values(coordinator.hooks.listHandlers('tool:pre')).flat();
      },
      { priority: 6, name: 'after' },
    );
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), {});
    expect(order).toEqual(['hooks-logging', 'after']);
    await cleanup();
  });

  it('cleanup unsubscribes: later emits are not logged', async () => {
    const { coordinator, cleanup, file } = await setup();
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), {});
    await cleanup();
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), {});
    expect(lines(file)).toHaveLength(1);
    expect(coordinator.hooks.has('tool:pre')).toBe(false);
  });

  it('resumes on a fresh line after an existing file that ends in a torn record', async () => {
    const { coordinator, cleanup, file } = await setup();
    await coordinator.hooks.emit(dynamicEvent('tool:pre'), { n: 1 });
    await cleanup();
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"ts":"torn`);
    const again = await setup();
    await again.coordinator.hooks.emit(dynamicEvent('tool:pre'), { n: 2 });
    await again.cleanup();
    const raw = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(raw).toHaveLength(3);
    expect(raw[1]).toBe('{"ts":"torn');
    expect(JSON.parse(raw[2] as string).data.n).toBe(2);
  });
});
