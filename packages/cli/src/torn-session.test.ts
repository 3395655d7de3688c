import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEventLog } from '@amplifier/sessions';
import { startReadyChild } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cliEnv,
  jsonLines,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  writeMockPlan,
} from './__fixtures__/cli.js';

afterEach(() => {
  removeTempDirs();
});

const WRITER = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '__fixtures__',
  'torn-session-writer.mjs',
);

interface Shown {
  messages: Array<{ role: string; content: unknown }>;
  skipped_lines: number;
  events: { records: number; events: Record<string, number> };
  notes: Array<{ file: string; line: number; kind: string; message: string }>;
}

/** Run the writer on the session folder under a file size limit; resolves once both files are torn, then kills it. */
async function tearAndKill(dir: string, limit: number): Promise<{ messages: number; events: number }> {
  const writer = startReadyChild<{ messages: number; events: number }>('prlimit', [
    `--fsize=${limit}`,
    process.execPath,
    WRITER,
    dir,
    String(limit),
  ]);
  const ready = await writer.ready;
  expect(await writer.kill()).toBe('SIGKILL');
  return ready;
}

describe('a session whose writer was killed mid-record', () => {
  it('session show and resume skip the torn lines with a note and keep every whole record', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['first answer', 'second answer'], { tools: [] });
    const env = cliEnv(home);
    const first = await runCli(['run', '--plan', plan, '--json', 'first prompt'], { cwd, env });
    expect(first.code, first.stderr).toBe(0);
    const [dir] = sessionDirs(home);
    const id = path.basename(dir!);
    const transcript = path.join(dir!, 'transcript.jsonl');
    const events = path.join(dir!, 'events.jsonl');
    const before = { messages: 2, events: (await loadEventLog(events)).records.length };
    expect(before.events).toBeGreaterThan(3);

    const limit = Math.max(fs.statSync(transcript).size, fs.statSync(events).size) + 20_000;
    const added = await tearAndKill(dir!, limit);
    for (const file of [transcript, events]) {
      expect(fs.statSync(file).size).toBe(limit);
      expect(fs.readFileSync(file).at(-1)).not.toBe(0x0a);
    }
    const list = await runCli(['session', 'list', '--json'], { cwd, env });
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ session_id: id, status: 'interrupted' });

    // session show (text): the conversation, the event count, a note per torn line on stderr.
    const show = await runCli(['session', 'show', id], { cwd, env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`events    ${before.events + added.events} records in events.jsonl`);
    expect(show.stderr).toMatch(/note: .*transcript\.jsonl line \d+ is cut off/);
    expect(show.stderr).toMatch(/note: .*events\.jsonl line \d+ is cut off/);

    // session show --json: every whole message and event record, and the notes.
    const shown = JSON.parse((await runCli(['session', 'show', id, '--json'], { cwd, env })).stdout) as Shown;
    expect(shown.messages).toHaveLength(before.messages + added.messages);
    expect(shown.events.records).toBe(before.events + added.events);
    expect(shown.skipped_lines).toBe(1);
    expect(shown.notes.map(({ file, line, kind }) => ({ file: path.basename(file), line, kind }))).toEqual([
      { file: 'transcript.jsonl', line: before.messages + added.messages + 1, kind: 'torn_last_line' },
      { file: 'events.jsonl', line: before.events + added.events + 1, kind: 'torn_last_line' },
    ]);

    // Resume: the transcript loads without the torn line (said on stderr), the event logger says
    // what it found and goes on on a fresh line.
    const resumed = await runCli(['run', '--resume', id, '--plan', plan, '--json', 'go on'], { cwd, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('Skipped 1 unreadable transcript line');
    const lines = jsonLines(resumed.stdout);
    expect(lines.find((l) => l.type === 'message' && l.source === 'hooks-logging')?.message).toMatch(
      /events\.jsonl ends in a record cut off by an earlier writer/,
    );
    expect(lines.find((l) => l.type === 'result')).toMatchObject({ status: 'completed' });

    const after = JSON.parse((await runCli(['session', 'show', id, '--json'], { cwd, env })).stdout) as Shown;
    expect(after.messages).toHaveLength(before.messages + added.messages + 2);
    expect(after.messages.at(-2)).toMatchObject({ role: 'user', content: 'go on' });
    expect(after.events.records).toBeGreaterThan(shown.events.records);
    // The torn event record is now in the middle of the log: still skipped, still noted.
    expect(after.notes).toMatchObject([{ kind: 'invalid_line', line: before.events + added.events + 1 }]);
    const api = await loadEventLog(events);
    expect(api.records).toHaveLength(after.events.records);
    expect(api.notes).toHaveLength(1);
  }, 120_000);
});
