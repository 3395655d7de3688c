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
  readSessionMetadata,
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
    for (const pid of pgrep(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone between pgrep and kill: bubblewrap's --die-with-parent ends it after the CLI.
      }
    }

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
    expect(list.stdout).toMatch(
      new RegExp(`${id}\\s+\\S+ \\S+\\s+1\\s+completed\\s+0\\s+mock\\s+remember me`),
    );
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

/**
 * A session directory as Python Amplifier's CLI writes it (reference:
 * amplifier-modules.md 12.4, bundles-and-agents.md B8): `metadata.json` with
 * `working_dir`, `created` (+00:00 offset), `bundle`, `model`, `turn_count`,
 * `parent_id`; `transcript.jsonl` without system messages, assistant tool
 * calls as `{id, tool, arguments}`; `events.jsonl` in the amplifier.log format.
 */
function pythonSession(
  home: string,
  cwd: string,
  metadata: Record<string, unknown> = {},
): { id: string; dir: string } {
  const id = '0b5f2a4e-9c1d-4e7a-8f3b-2d6c9e1a7b40';
  const dir = path.join(home, 'projects', projectSlug(cwd), 'sessions', id);
  fs.mkdirSync(dir, { recursive: true });
  const at = (s: number): string => `2026-01-05T10:00:0${s}.123456+00:00`;
  fs.writeFileSync(
    path.join(dir, 'metadata.json'),
    JSON.stringify(
      {
        session_id: id,
        created: at(0),
        bundle: 'bundle:foundation',
        model: 'claude-sonnet-4-5',
        turn_count: 2,
        working_dir: cwd,
        parent_id: null,
        name: 'List the files',
        description: 'The user asked for the files of the project.',
        bundle_context: { module_paths: {}, mention_mappings: {} },
        ...metadata,
      },
      null,
      2,
    ),
  );
  const transcript = [
    { role: 'user', content: 'list the files', metadata: { timestamp: at(1) } },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'Listing them.' }],
      tool_calls: [{ id: 'toolu_01', tool: 'bash', arguments: { command: 'ls' } }],
      metadata: { timestamp: at(2) },
    },
    { role: 'tool', tool_call_id: 'toolu_01', content: 'README.md', metadata: { timestamp: at(3) } },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'There is a README.md.' }],
      metadata: { timestamp: at(4) },
    },
  ];
  fs.writeFileSync(
    path.join(dir, 'transcript.jsonl'),
    `${transcript.map((m) => JSON.stringify(m)).join('\n')}\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'events.jsonl'),
    `${JSON.stringify({
      ts: '2026-01-05T10:00:00.100+00:00',
      lvl: 'INFO',
      schema: { name: 'amplifier.log', ver: '1.0.0' },
      event: 'session:start',
      session_id: id,
      data: { parent_id: null },
    })}\n`,
  );
  return { id, dir };
}

describe('sessions written by Python Amplifier', () => {
  it('reads every metadata key the reference writes, with its meaning, and keeps the others', () => {
    const dir = tempDir();
    const metadata = readSessionMetadata(
      {
        session_id: 'abc',
        created: '2026-01-05T10:00:00+00:00',
        working_dir: '/srv/app',
        bundle: 'bundle:foundation',
        model: 'unknown',
        turn_count: 4,
        parent_id: 'parent-1',
        agent_name: 'explorer',
        name: 'A name',
      },
      dir,
    );
    expect(metadata).toMatchObject({
      session_id: 'abc',
      cwd: '/srv/app',
      working_dir: '/srv/app',
      created: '2026-01-05T10:00:00+00:00',
      // No `updated`: the creation time stands in when the file is not there to date it.
      updated: '2026-01-05T10:00:00+00:00',
      bundle: 'bundle:foundation',
      model: null,
      turn_count: 4,
      parent_id: 'parent-1',
      agent_name: 'explorer',
      name: 'A name',
      status: 'completed',
      provider: '',
      options: { plan_file: null, provider: null, model: null, max_iterations: null },
    });
    expect(readSessionMetadata([], dir)).toBeUndefined();
    expect(readSessionMetadata({}, path.join(dir, 'the-id'))).toMatchObject({
      session_id: 'the-id',
      cwd: '',
    });
  });

  it('resumes without --cwd (its working_dir), lists and shows it, and keeps its keys when saving', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const { id, dir } = pythonSession(home, cwd);
    const elsewhere = tempDir();

    const list = await runCli(['session', 'list', '--json'], { cwd, env: cliEnv(home) });
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        session_id: id,
        cwd,
        turn_count: 2,
        status: 'completed',
        name: 'List the files',
      }),
    ]);
    const show = await runCli(['session', 'show', id.slice(0, 8)], { cwd: elsewhere, env: cliEnv(home) });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('bundle    bundle:foundation');
    expect(show.stdout).toContain(`cwd       ${cwd}`);
    expect(show.stdout).toMatch(/→ bash \{"command":"ls"\}/);
    expect(show.stdout).toMatch(/assistant\s+There is a README\.md\./);

    const plan = writeMockPlan(elsewhere, ['resumed in the right place']);
    const resumed = await runCli(['run', '--resume', id.slice(0, 8), '--plan', plan, '--json', 'and now?'], {
      cwd: elsewhere,
      env: cliEnv(home),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const lines = jsonLines(resumed.stdout);
    expect(lines.find((l) => l.type === 'session')).toMatchObject({ session_id: id, resumed: true });
    // The four stored messages and the new prompt reached the provider.
    expect(eventData(lines, 'llm:request').message_count).toBe(5);
    expect(lines.find((l) => l.type === 'result')?.response).toBe('resumed in the right place');

    const after = JSON.parse(fs.readFileSync(path.join(dir, 'metadata.json'), 'utf8'));
    expect(after).toMatchObject({
      // Python's keys, kept.
      session_id: id,
      created: '2026-01-05T10:00:00.123456+00:00',
      bundle: 'bundle:foundation',
      working_dir: cwd,
      parent_id: null,
      description: 'The user asked for the files of the project.',
      bundle_context: { module_paths: {}, mention_mappings: {} },
      name: 'List the files',
      turn_count: 3,
      // Ours, added.
      cwd,
      provider: 'mock',
      status: 'completed',
    });
    const roles = fs
      .readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Message).role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    // The event log goes on in the same file (same project slug from the working dir).
    const events = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(events.length).toBeGreaterThan(1);
    expect(events.map((l) => (JSON.parse(l) as { event: string }).event)).toContain('session:resume');
  });

  it('a session that records no working directory says to pass --cwd', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const { id } = pythonSession(home, cwd, { working_dir: undefined });
    const result = await runCli(['run', '--resume', id, 'x'], { cwd: tempDir(), env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Session ${id} does not record its working directory`);
    expect(result.stderr).toContain('pass --cwd <dir>');
  });
});

describe('sessions written here read as the reference writes them', () => {
  it('metadata.json has the reference keys next to ours; transcript.jsonl and events.jsonl match the reference format', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [
      { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: 'echo formats' } }] },
      'done',
    ]);
    const run = await runCli(['run', '--plan', plan, '--json', 'check the formats'], {
      cwd,
      env: cliEnv(home),
    });
    expect(run.code, run.stderr).toBe(0);
    const [dir] = sessionDirs(home);
    expect(path.dirname(dir!)).toBe(path.join(home, 'projects', projectSlug(cwd), 'sessions'));

    const metadata = JSON.parse(fs.readFileSync(path.join(dir!, 'metadata.json'), 'utf8'));
    // What Python Amplifier's `session list/show` and resume read.
    expect(metadata).toMatchObject({
      session_id: path.basename(dir!),
      working_dir: cwd,
      parent_id: null,
      turn_count: 1,
      name: 'check the formats',
    });
    expect(Number.isNaN(Date.parse(metadata.created))).toBe(false);
    // Ours are kept.
    expect(metadata).toMatchObject({ cwd, provider: 'mock', status: 'completed' });

    const transcript = fs
      .readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(transcript[1]).toMatchObject({
      tool_calls: [{ id: 'c1', tool: 'bash', arguments: { command: 'echo formats' } }],
    });
    expect(transcript[2]).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    for (const message of transcript) {
      expect(Number.isNaN(Date.parse((message.metadata as { timestamp: string }).timestamp))).toBe(false);
    }

    const events = fs
      .readFileSync(path.join(dir!, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The reference's record: these keys, plus the ones it promotes to the top level when present.
    const promoted = [
      'redaction',
      'status',
      'duration_ms',
      'module',
      'component',
      'error',
      'request_id',
      'span_id',
      'parent_span_id',
    ];
    for (const record of events) {
      const keys = Object.keys(record);
      expect(keys).toEqual(expect.arrayContaining(['data', 'event', 'lvl', 'schema', 'session_id', 'ts']));
      expect(keys.filter((k) => !['data', 'event', 'lvl', 'schema', 'session_id', 'ts'].includes(k))).toEqual(
        keys.filter((k) => promoted.includes(k)),
      );
      expect(record).toMatchObject({
        schema: { name: 'amplifier.log', ver: '1.0.0' },
        session_id: metadata.session_id,
      });
    }
    expect(events.find((e) => e.event === 'tool:post')?.data).toMatchObject({
      parent_id: null,
      tool_name: 'bash',
    });
  });
});
