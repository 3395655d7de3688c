/**
 * A session written by a real scripted run, laid out as the CLI stores it:
 * an AmplifierSession with loop-basic, context-simple, provider-mock (the
 * script), tool-filesystem, tool-bash, hooks-approval (no one to ask, so
 * `ask` rules are denied) and hooks-logging writing `events.jsonl` into the
 * session folder; the transcript and metadata written as the CLI writes
 * them (one message per line, system messages left out).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, type ModuleLoaderLike, type MountFunction, silentLogger } from '@amplifier/core';
import { mount as mountApproval } from '@amplifier/hooks-approval';
import { mount as mountLogging, onSessionReady } from '@amplifier/hooks-logging';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { mount as mountMock } from '@amplifier/provider-mock';
import { projectSlug } from '@amplifier/sessions';
import { mount as mountBash } from '@amplifier/tool-bash';
import { mount as mountFilesystem } from '@amplifier/tool-filesystem';

const MOUNTS: Record<string, MountFunction> = {
  'loop-basic': mountLoop,
  'context-simple': mountContext,
  'provider-mock': mountMock,
  'tool-filesystem': mountFilesystem,
  'tool-bash': mountBash,
  'hooks-approval': mountApproval,
  'hooks-logging': mountLogging,
};

const loader: ModuleLoaderLike = {
  async load(id, config = {}) {
    return {
      id,
      type: undefined,
      mount: async (coordinator) => MOUNTS[id]!(coordinator, config),
      ...(id === 'hooks-logging' && { onSessionReady }),
    };
  },
};

const temps: string[] = [];

export function tempDir(prefix = 'amp-viewer-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export interface ScriptedRun {
  id: string;
  dir: string;
  cwd: string;
}

/** A project with enough files that a grep takes a moment (so two parallel greps overlap in time). */
export function writeProject(cwd: string): void {
  for (let d = 0; d < 20; d++) {
    const folder = path.join(cwd, 'src', `pkg${d}`);
    fs.mkdirSync(folder, { recursive: true });
    for (let f = 0; f < 60; f++) {
      const lines = Array.from(
        { length: 60 },
        (_, i) => `export const value${i} = ${i}; // TODO item ${d}-${f}-${i}`,
      );
      fs.writeFileSync(path.join(folder, `file${f}.ts`), `${lines.join('\n')}\n`);
    }
  }
  fs.writeFileSync(
    path.join(cwd, 'NOTES.md'),
    'Attack: <script>window.__pwned = true</script> and [click me](javascript:window.__pwned=true)\n<img src=x onerror="window.__pwned=true">\n',
  );
}

/** The default script: parallel greps and a read (allowed by rule), a bash call (denied), a read of hostile text, the answer. */
export const DEFAULT_SCRIPT: unknown[] = [
  {
    text: 'Let me look for TODOs and read the notes.',
    tool_calls: [
      { id: 'call_grep_a', name: 'grep', arguments: { pattern: 'TODO item 1', path: 'src' } },
      {
        id: 'call_grep_b',
        name: 'grep',
        arguments: { pattern: 'value4[0-9]', path: 'src', output_mode: 'count' },
      },
      { id: 'call_glob', name: 'glob', arguments: { pattern: '**/*.ts' } },
    ],
    usage: { input_tokens: 1200, output_tokens: 80, cost_usd: '0.0042' },
  },
  {
    text: 'Now a command.',
    tool_calls: [{ id: 'call_bash', name: 'bash', arguments: { command: 'rm -rf build' } }],
    usage: { input_tokens: 2400, output_tokens: 40, cost_usd: '0.0075' },
  },
  {
    tool_calls: [{ id: 'call_read', name: 'read_file', arguments: { file_path: 'NOTES.md' } }],
    usage: { input_tokens: 2600, output_tokens: 30, cost_usd: '0.0080' },
  },
  {
    text: 'Done. The notes say <script>window.__pwned = true</script> and [click me](javascript:window.__pwned=true).',
    usage: { input_tokens: 2900, output_tokens: 60, cost_usd: '0.0093' },
  },
];

/** Runs one turn of `prompt` with `script` and stores the session under `home`. */
export async function scriptedRun(
  home: string,
  options: { script?: unknown[]; prompt?: string; cwd?: string; status?: string } = {},
): Promise<ScriptedRun> {
  const cwd = options.cwd ?? tempDir('amp-viewer-proj-');
  if (options.cwd === undefined) writeProject(cwd);
  const id = randomUUID();
  const dir = path.join(home, 'projects', projectSlug(cwd), 'sessions', id);
  fs.mkdirSync(dir, { recursive: true });
  const created = new Date().toISOString();
  const metadata = (status: string): Record<string, unknown> => ({
    session_id: id,
    created,
    updated: new Date().toISOString(),
    cwd,
    working_dir: cwd,
    parent_id: null,
    provider: 'mock',
    model: null,
    plan: {},
    options: {},
    turn_count: 1,
    status,
    name: options.prompt ?? 'Find the TODOs',
    pid: process.pid,
    cli_version: '0.1.0',
  });
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(metadata('running'), null, 2));
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: { script: options.script ?? DEFAULT_SCRIPT } }],
      tools: [
        { module: 'tool-filesystem', config: { working_dir: cwd } },
        { module: 'tool-bash', config: { working_dir: cwd, sandbox: 'off' } },
      ],
      hooks: [
        { module: 'hooks-approval' },
        { module: 'hooks-logging', config: { session_log_template: path.join(dir, 'events.jsonl') } },
      ],
    },
    { loader, logger: silentLogger, sessionId: id },
  );
  await session.initialize();
  await session.execute(options.prompt ?? 'Find the TODOs');
  const context = session.coordinator.get('context') as { getMessages(): Promise<{ role: string }[]> };
  const messages = (await context.getMessages()).filter((m) => m.role !== 'system' && m.role !== 'developer');
  await session.cleanup();
  fs.writeFileSync(
    path.join(dir, 'transcript.jsonl'),
    messages.map((m) => `${JSON.stringify(m)}\n`).join(''),
  );
  fs.writeFileSync(
    path.join(dir, 'metadata.json'),
    JSON.stringify(metadata(options.status ?? 'completed'), null, 2),
  );
  return { id, dir, cwd };
}
