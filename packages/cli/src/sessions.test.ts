import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '@amplifier/core';

function responseText(content: Message['content']): string {
  return typeof content === 'string' ? content : content.map((b) => ('text' in b ? b.text : '')).join('');
}

import { afterEach, describe, expect, it } from 'vitest';
import {
  CliProcess,
  cliEnv,
  eventData,
  jsonLines,
  pgrep,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  until,
  writeMockPlan,
} from './__fixtures__/cli.js';
import {
  INTERRUPTED_RESULT,
  projectSlug,
  repairToolCalls,
  type SessionMetadata,
  SessionRecord,
  SessionStore,
} from './sessions.js';

const leftovers: string[] = [];
afterEach(() => {
  for (const marker of leftovers.splice(0)) for (const pid of pgrep(marker)) process.kill(pid, 'SIGKILL');
  removeTempDirs();
});

function meta(id: string, cwd: string, updated = new Date().toISOString()): SessionMetadata {
  return {
    session_id: id,
    created: updated,
    updated,
    cwd,
    provider: 'mock',
    model: null,
    plan: {},
    options: { plan_file: null, provider: 'mock', model: null, max_iterations: null },
    turn_count: 0,
    status: 'completed',
    name: null,
    pid: process.pid,
    cli_version: '0.0.0',
  };
}

describe('session store', () => {
  it('the project slug is the cwd with separators turned into "-"', () => {
    expect(projectSlug('/home/u/app')).toBe('-home-u-app');
  });

  it('appends one line per message, skips system and developer, and tolerates a torn last line', () => {
    const home = tempDir();
    const store = new SessionStore(home);
    const record = store.create(meta('s1', '/work/p'));
    record.appendMessage({ role: 'system', content: 'sys' });
    record.appendMessage({ role: 'user', content: 'hi' });
    record.appendMessage({ role: 'assistant', content: 'hello' });
    record.close();
    fs.appendFileSync(record.transcriptPath, '{"role":"assistant","cont');
    const { messages, skipped } = new SessionRecord(record.dir, record.metadata).readTranscript();
    expect(messages.map((m) => m.content)).toEqual(['hi', 'hello']);
    expect(skipped).toBe(1);
    // Appending after a torn line starts on a fresh line, so the new record parses.
    const again = new SessionRecord(record.dir, record.metadata);
    again.appendMessage({ role: 'user', content: 'again' });
    again.close();
    const reread = again.readTranscript();
    expect(reread.messages.map((m) => m.content)).toEqual(['hi', 'hello', 'again']);
    expect(reread.skipped).toBe(1);
  });

  it('writes metadata atomically (no temp file left) and stamps updated', () => {
    const home = tempDir();
    const record = new SessionStore(home).create(meta('s2', '/work/p', '2020-01-01T00:00:00.000Z'));
    record.saveMetadata({ turn_count: 3 });
    expect(fs.readdirSync(record.dir)).toEqual(['metadata.json']);
    const saved = JSON.parse(fs.readFileSync(path.join(record.dir, 'metadata.json'), 'utf8'));
    expect(saved.turn_count).toBe(3);
    expect(saved.updated > '2020-01-01').toBe(true);
  });

  it('finds sessions by unique prefix, this project first; lists newest first', () => {
    const home = tempDir();
    const store = new SessionStore(home);
    store.create(meta('aaaa-1', '/p/one', '2024-01-01T00:00:00.000Z'));
    store.create(meta('aaab-2', '/p/one', '2024-01-02T00:00:00.000Z'));
    store.create(meta('cccc-3', '/p/two', '2024-01-03T00:00:00.000Z'));
    expect(store.list('/p/one').map((r) => r.id)).toEqual(['aaab-2', 'aaaa-1']);
    expect(store.list().map((r) => r.id)).toEqual(['cccc-3', 'aaab-2', 'aaaa-1']);
    expect(store.find('aaab', '/p/one').id).toBe('aaab-2');
    expect(store.find('cccc', '/p/one').id).toBe('cccc-3');
    expect(() => store.find('aaa', '/p/one')).toThrow(/ambiguous/);
    expect(() => store.find('zzz', '/p/one')).toThrow(/No session 'zzz'/);
  });

  it('gives tool calls without a result an "interrupted" result', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'a', tool: 'bash', arguments: {} },
          { id: 'b', tool: 'bash', arguments: {} },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
    ];
    const { messages: repaired, repaired: count } = repairToolCalls(messages);
    expect(count).toBe(1);
    expect(repaired.at(-1)).toEqual({ role: 'tool', tool_call_id: 'b', content: INTERRUPTED_RESULT });
  });
});

describe('resume and continue', () => {
  it('resume after a crash: kill -9 mid-turn, then --resume loads the transcript (torn last line tolerated)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const marker = `sleep 1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    leftovers.push(marker);
    const plan = writeMockPlan(cwd, [
      { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: `${marker}; echo after` } }] },
      'never reached',
    ]);
    const cli = new CliProcess(['run', '--plan', plan, 'first prompt'], { cwd, env: cliEnv(home) });
    await cli.waitFor('stderr', '→ bash');
    await until(() => pgrep(marker).length > 0, 'the tool to start');
    cli.kill('SIGKILL');
    await cli.exited;
    for (const pid of pgrep(marker)) process.kill(pid, 'SIGKILL');

    const [dir] = sessionDirs(home);
    const id = path.basename(dir!);
    const transcript = path.join(dir!, 'transcript.jsonl');
    // The turn so far is on disk: the user message and the assistant's tool call.
    const before = fs.readFileSync(transcript, 'utf8').trim().split('\n');
    expect(before.map((l) => (JSON.parse(l) as Message).role)).toEqual(['user', 'assistant']);
    // A write cut off by the crash.
    fs.appendFileSync(transcript, '{"role":"tool","tool_call_id":"c1","con');
    // The session shows as interrupted.
    const list = await runCli(['session', 'list', '--json'], { cwd, env: cliEnv(home) });
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ session_id: id, status: 'interrupted' });

    const resumePlan = writeMockPlan(cwd, ['resumed fine'], { name: 'resume.json' });
    const resumed = await runCli(
      ['run', '--resume', id.slice(0, 8), '--plan', resumePlan, '--json', 'second prompt'],
      {
        cwd,
        env: cliEnv(home),
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('Skipped 1 unreadable transcript line');
    const lines = jsonLines(resumed.stdout);
    expect(lines.find((l) => l.type === 'session')).toMatchObject({ session_id: id, resumed: true });
    expect(lines.some((l) => l.event === 'session:resume')).toBe(true);
    expect(lines.some((l) => l.event === 'session:start')).toBe(false);
    // user, assistant(tool call), tool (interrupted), user: what the provider was sent.
    const request = eventData(lines, 'llm:request') as { message_count: number };
    expect(request.message_count).toBe(4);
    expect(lines.find((l) => l.type === 'result')?.response).toBe('resumed fine');
    const after = fs
      .readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Message);
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(after[2]?.content).toBe(INTERRUPTED_RESULT);
  });

  it('app-cli 5: continue restores the most recent session of this project and appends the new turn', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['one', 'two'], { mock: { loop: true } });
    const first = await runCli(['run', '--plan', plan, '--json', 'first'], { cwd, env: cliEnv(home) });
    expect(first.code, first.stderr).toBe(0);
    const id = jsonLines(first.stdout).find((l) => l.type === 'session')?.session_id;
    // The plan file is remembered in metadata: continue uses it again.
    const second = await runCli(['continue', '--json', 'second'], { cwd, env: cliEnv(home) });
    expect(second.code, second.stderr).toBe(0);
    const lines = jsonLines(second.stdout);
    expect(lines.find((l) => l.type === 'session')).toMatchObject({ session_id: id, resumed: true });
    expect(eventData(lines, 'llm:request').message_count).toBe(3);
    const [dir] = sessionDirs(home);
    const texts = fs
      .readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => responseText((JSON.parse(l) as Message).content));
    expect(texts).toEqual(['first', 'one', 'second', 'one']);
    expect(JSON.parse(fs.readFileSync(path.join(dir!, 'metadata.json'), 'utf8')).turn_count).toBe(2);
  });

  it('continue with no session in this project says how to start one', async () => {
    const result = await runCli(['continue', 'x'], { cwd: tempDir(), env: cliEnv(tempDir()) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No session to continue');
  });
});

describe('session list | show | delete', () => {
  it('lists, shows and deletes stored sessions', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [
      { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: 'echo listed' } }] },
      'the end',
    ]);
    const run = await runCli(['run', '--plan', plan, '--json', 'remember me'], { cwd, env: cliEnv(home) });
    const id = jsonLines(run.stdout).find((l) => l.type === 'session')?.session_id as string;

    const list = await runCli(['session', 'list'], { cwd, env: cliEnv(home) });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+\\S+ \\S+\\s+1\\s+completed\\s+mock\\s+remember me`));
    const elsewhere = await runCli(['session', 'list'], { cwd: tempDir(), env: cliEnv(home) });
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.stderr).toContain('No sessions for');
    const all = await runCli(['session', 'list', '--all', '--json'], { cwd: tempDir(), env: cliEnv(home) });
    expect(JSON.parse(all.stdout).map((s: { session_id: string }) => s.session_id)).toEqual([id]);

    const show = await runCli(['session', 'show', id.slice(0, 6)], { cwd, env: cliEnv(home) });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`session   ${id}`);
    expect(show.stdout).toMatch(/user\s+remember me/);
    expect(show.stdout).toMatch(/→ bash \{"command":"echo listed"\}/);
    expect(show.stdout).toMatch(/assistant\s+the end/);
    const showJson = await runCli(['session', 'show', id, '--json'], { cwd, env: cliEnv(home) });
    expect(JSON.parse(showJson.stdout).messages).toHaveLength(4);

    const del = await runCli(['session', 'delete', id], { cwd, env: cliEnv(home) });
    expect(del.code).toBe(0);
    expect(del.stderr).toContain(`Deleted session ${id}`);
    expect(sessionDirs(home)).toEqual([]);
    const gone = await runCli(['session', 'show', id], { cwd, env: cliEnv(home) });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`No session '${id}'`);
  });
});
