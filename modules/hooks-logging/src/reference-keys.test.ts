import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AmplifierError, dynamicEvent } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mount } from './index.js';

let tmp: string;
let project: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-ref-'));
  project = path.join(tmp, 'project');
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function logWith(config: Record<string, unknown>, logger = new RecordingLogger()) {
  const coordinator = createTestCoordinator({ bare: true, logger });
  coordinator.registerCapability('session.working_dir', project);
  const cleanup = await mount(coordinator, config);
  await coordinator.hooks.emit(dynamicEvent('tool:pre'), { tool_name: 'bash' });
  await coordinator.hooks.emit(dynamicEvent('tool:error'), { tool_name: 'bash', error: { msg: 'boom' } });
  await coordinator.hooks.emit(dynamicEvent('session:start'), { lvl: 'DEBUG' });
  await cleanup();
  return { coordinator, logger };
}

function events(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { event: string }).event);
}

describe('the reference keys', () => {
  it('output_dir (the mount plan specification) puts the log at <output_dir>/<session>/events.jsonl, from the working dir', async () => {
    await logWith({ output_dir: '.amplifier/logs' });
    const file = path.join(project, '.amplifier/logs/test-session/events.jsonl');
    expect(events(file)).toEqual(['tool:pre', 'tool:error', 'session:start']);
  });

  it('mode: session-only (the foundation bundle) writes the session file and no console lines', async () => {
    const template = path.join(tmp, '{session_id}.jsonl');
    const write = process.stderr.write;
    const printed: string[] = [];
    process.stderr.write = ((chunk: string) => {
      printed.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const { logger } = await logWith({
        mode: 'session-only',
        session_log_template: template,
        console: 'debug',
      });
      expect(logger.problemsSince()).toEqual([]);
    } finally {
      process.stderr.write = write;
    }
    expect(printed.filter((line) => line.includes('tool:pre'))).toEqual([]);
    expect(events(path.join(tmp, 'test-session.jsonl'))).toHaveLength(3);
  });

  it('level drops records below it (DEBUG < INFO < WARNING < ERROR < CRITICAL), case-insensitive', async () => {
    const template = path.join(tmp, '{session_id}.jsonl');
    await logWith({ level: 'info', session_log_template: template });
    expect(events(path.join(tmp, 'test-session.jsonl'))).toEqual(['tool:pre', 'tool:error']);
    rmSync(path.join(tmp, 'test-session.jsonl'));
    await logWith({ level: 'ERROR', session_log_template: template });
    expect(events(path.join(tmp, 'test-session.jsonl'))).toEqual(['tool:error']);
  });

  it('a mode it does not know is warned about once and logs to the session file', async () => {
    const logger = new RecordingLogger();
    const template = path.join(tmp, '{session_id}.jsonl');
    await logWith({ mode: 'console', session_log_template: template }, logger);
    expect(logger.problemsSince()).toEqual([
      "hooks-logging: config key 'mode' value 'console' is not known (known: session-only); the session file is written, as with session-only",
    ]);
    expect(events(path.join(tmp, 'test-session.jsonl'))).toHaveLength(3);
  });

  it('a wrong level value fails with the key named', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    await expect(mount(coordinator, { level: 'LOUD' })).rejects.toThrow(
      /hooks-logging: invalid config[\s\S]*level/,
    );
  });

  it('an unknown key warns once and the module still logs', async () => {
    const logger = new RecordingLogger();
    const template = path.join(tmp, '{session_id}.jsonl');
    await logWith({ output: 'console', session_log_template: template }, logger);
    await logWith({ output: 'console', session_log_template: template }, logger);
    expect(logger.problemsSince()).toEqual(["hooks-logging: unknown config key 'output' is ignored"]);
    expect(existsSync(path.join(tmp, 'test-session.jsonl'))).toBe(true);
  });

  it('an unknown key inside redaction, or a misspelt redaction, is refused with the reason', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    for (const config of [{ redaction: { key: ['password'] } }, { redactoin: { keys: ['password'] } }]) {
      const error = await mount(coordinator, config).catch((e: unknown) => e);
      expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
      expect((error as Error).message).toContain('would write secrets the config asked to redact');
    }
  });
});
