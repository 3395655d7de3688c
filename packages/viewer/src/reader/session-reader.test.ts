import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, scriptedRun, tempDir } from '../__fixtures__/scripted-run.js';
import { findSessionFolders } from './session-folder.js';
import { SessionReader } from './session-reader.js';

afterEach(removeTempDirs);

const PYTHON_HOME = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '__fixtures__',
  'amplifier-home',
);

function folderOf(home: string, id: string) {
  const folder = findSessionFolders(home).find((f) => f.id === id);
  if (folder === undefined) throw new Error(`no folder ${id}`);
  return folder;
}

function session(home: string, id: string, files: Record<string, string>): string {
  const dir = path.join(home, 'projects', '-p', 'sessions', id);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const record = (event: string, ts: string, data: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ ts, lvl: 'INFO', event, session_id: 's', data })}\n`;

describe('SessionReader', () => {
  it('summarizes a real scripted run: status, model, duration, tokens, tool calls', async () => {
    const home = tempDir();
    const run = await scriptedRun(home);
    const summary = await new SessionReader().summary(folderOf(home, run.id));
    expect(summary).toMatchObject({
      id: run.id,
      status: 'completed',
      model: 'mock-model',
      provider: 'mock',
      tokens: { input: 9100, output: 210 },
      providerCalls: 4,
      toolCalls: 5,
      writer: 'amplifier-ts',
      problems: [],
    });
    expect(summary.durationMs).toBeGreaterThan(0);
  });

  it("reads Python Amplifier's sessions: keys, status, cost, the agent session's parent", async () => {
    const reader = new SessionReader();
    const folders = findSessionFolders(PYTHON_HOME);
    const summaries = await Promise.all(folders.map((f) => reader.summary(f)));
    const parent = summaries.find((s) => s.parentId === null)!;
    const child = summaries.find((s) => s.parentId !== null)!;
    expect(parent).toMatchObject({
      name: 'Explain the build script',
      status: 'completed',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      cwd: '/home/dev/app',
      writer: 'amplifier',
      toolCalls: 3,
      durationMs: Date.parse('2026-03-02T09:15:12.042Z') - Date.parse('2026-03-02T09:15:01.200Z'),
    });
    expect(parent.cost).toBeCloseTo(0.03721, 6);
    expect(child).toMatchObject({ parentId: parent.id, agent: 'explorer', model: 'claude-haiku-4-5' });
  });

  it('a missing metadata.json, a torn line in the middle and a torn last line: shown with what is wrong', async () => {
    const home = tempDir();
    session(home, 'torn', {
      'events.jsonl':
        record('llm:request', '2026-01-01T00:00:00.000Z', { provider: 'p', model: 'm1' }) +
        '{"ts":"2026-01-01T00:00:00.500Z","event":"llm:resp\n' +
        record('session:end', '2026-01-01T00:00:02.000Z', { status: 'failed' }) +
        '{"ts":"2026-01-01T00:00:03Z","event":"tool',
      'transcript.jsonl': '{"role":"user","content":"hi"}\nnot json\n',
    });
    const reader = new SessionReader();
    const folder = folderOf(home, 'torn');
    const detail = await reader.detail(folder, []);
    expect(detail.summary).toMatchObject({ status: 'failed', model: 'm1', events: 2, durationMs: 2000 });
    expect(detail.messages).toEqual([{ role: 'user', content: 'hi' }]);
    const problems = detail.summary.problems.join('\n');
    expect(problems).toContain('metadata.json is missing');
    expect(problems).toMatch(/events\.jsonl line 2 is not valid JSON/);
    expect(problems).toMatch(/events\.jsonl ends in an incomplete line/);
    expect(problems).toMatch(/transcript\.jsonl line 2 is not valid JSON/);
    // The live view goes on after the last whole line: the torn one is read once it is finished.
    const size = fs.statSync(path.join(folder.dir, 'events.jsonl')).size;
    expect(detail.offsets.events).toBe(size - '{"ts":"2026-01-01T00:00:03Z","event":"tool'.length);
  });

  it('serves no secret: transcript, metadata (name, config) and an event log written before a rule existed are redacted with the log’s rules', async () => {
    const home = tempDir();
    // Built when the test runs: nothing in the repository looks like a live token.
    const body = (n: number) => Array.from({ length: n }, (_, i) => 'Ab3Cd5Ef7Gh9'[i % 12]).join('');
    const stripe = ['sk', '_live_', body(30)].join('');
    const npm = ['npm', '_', body(36)].join('');
    const pat = ['github', '_pat_', body(22), '_', body(59)].join('');
    const google = ['AI', 'za', body(35)].join('');
    const pem = [
      '-----BEGIN RSA PRIVATE',
      ' KEY-----\nMIIE',
      body(60),
      '\n-----END RSA PRIVATE',
      ' KEY-----',
    ].join('');
    session(home, 'leaky', {
      'metadata.json': JSON.stringify({
        session_id: 'leaky',
        name: `use ${stripe} for billing`,
        status: 'completed',
        config: { providers: [{ module: 'provider-openai', config: { api_key: 'plain-config-key-1' } }] },
      }),
      'transcript.jsonl': [
        { role: 'user', content: `deploy with ${npm} and ${pat}` },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'c1',
              tool: 'bash',
              arguments: { command: `curl -H "x-goog-api-key: ${google}" x`, password: 'pw-in-args-1' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: `key file:\n${pem}` },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
      'events.jsonl': record('tool:post', '2026-01-01T00:00:00.000Z', {
        result: { output: `token ${stripe}` },
      }),
    });
    const reader = new SessionReader();
    const folder = folderOf(home, 'leaky');
    const served = JSON.stringify([await reader.summary(folder), await reader.detail(folder, [])]);
    for (const secret of [stripe, npm, pat, google, body(60), 'plain-config-key-1', 'pw-in-args-1']) {
      expect(served).not.toContain(secret);
    }
    expect(served).toContain('use [REDACTED:stripe] for billing');
    expect(served).toContain('"content":"deploy with [REDACTED:npm] and [REDACTED:github]"');
    // What is not secret is served as it was.
    expect(served).toContain('"tool_call_id":"c1"');
    expect(served).toContain('"module":"provider-openai"');
  });

  it('metadata that is not JSON, or not an object, is a problem, not a failure', async () => {
    const home = tempDir();
    session(home, 'bad-json', { 'metadata.json': '{"session_id": ', 'transcript.jsonl': '' });
    session(home, 'array', { 'metadata.json': '[1,2]' });
    const reader = new SessionReader();
    const bad = await reader.summary(folderOf(home, 'bad-json'));
    expect(bad.problems.join('\n')).toMatch(/metadata\.json is not valid JSON/);
    expect(bad.status).toBe('unknown');
    const array = await reader.summary(folderOf(home, 'array'));
    expect(array.problems.join('\n')).toMatch(/not a JSON object/);
  });

  it('a huge session: the first maxEvents records, the rest counted; long strings cut with a note', async () => {
    const home = tempDir();
    const lines: string[] = [];
    for (let i = 0; i < 500; i++)
      lines.push(record('tool:pre', '2026-01-01T00:00:00.000Z', { tool_name: 't', tool_call_id: `c${i}` }));
    lines.push(
      record('tool:post', '2026-01-01T00:00:01.000Z', {
        tool_call_id: 'c0',
        result: { success: true, output: 'x'.repeat(100_000) },
      }),
    );
    session(home, 'huge', { 'events.jsonl': lines.join(''), 'metadata.json': '{"status":"completed"}' });
    const detail = await new SessionReader({ maxEvents: 100 }).detail(folderOf(home, 'huge'), []);
    expect(detail.events).toHaveLength(100);
    expect(detail.summary.problems.join('\n')).toContain(
      'events.jsonl has 501 records; the first 100 are shown',
    );
    const small = await new SessionReader().detail(folderOf(home, 'huge'), []);
    const output = JSON.stringify(small.events.at(-1));
    expect(output.length).toBeLessThan(25_000);
    expect(output).toContain('80000 more characters not shown');
  });

  it('caches a summary until the files change', async () => {
    const home = tempDir();
    const dir = session(home, 'c', { 'metadata.json': '{"status":"running","pid":0}' });
    const reader = new SessionReader();
    expect((await reader.summary(folderOf(home, 'c'))).status).toBe('interrupted');
    fs.writeFileSync(path.join(dir, 'metadata.json'), '{"status":"completed", "model": "m2"}');
    expect(await reader.summary(folderOf(home, 'c'))).toMatchObject({ status: 'completed', model: 'm2' });
  });
});
