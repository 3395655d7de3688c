/**
 * The mount plans of Amplifier's own specification and the foundation bundle's
 * logging behavior (src/__fixtures__/recorded, unchanged upstream data):
 * every module config in them that targets a module this project has is
 * loaded through the real modules, none is dropped, no reference key is called
 * unknown, and the reference keys take effect.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AmplifierSession, type ModuleSpec, type MountPlan } from '@amplifier/core';
import { RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { removeTempDirs, tempDir } from './__fixtures__/cli.js';
import { createLoader } from './modules.js';
import { expandEnv } from './plan.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/recorded/', import.meta.url));

let known: Set<string>;
beforeAll(async () => {
  known = new Set((await createLoader(tempDir()).discover()).map((m) => m.id));
});

const saved = { home: process.env.HOME, amplifierHome: process.env.AMPLIFIER_HOME };
afterEach(() => {
  for (const [key, value] of [
    ['HOME', saved.home],
    ['AMPLIFIER_HOME', saved.amplifierHome],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  removeTempDirs();
});

/** A reference plan file as data, `${VAR}` expanded as the CLI does (a fake key for the provider). */
function readPlan(name: string): Record<string, unknown> {
  const text = fs.readFileSync(path.join(FIXTURES, name), 'utf8');
  const data = name.endsWith('.json') ? JSON.parse(text) : parse(text);
  return expandEnv(data as Record<string, unknown>, { ANTHROPIC_API_KEY: 'sk-ant-test' });
}

/**
 * The entries of `section` that target a module this project has. The
 * orchestrator and context of the plans (`loop-streaming`, `context-persistent`,
 * ...) are not modules of this project: the session runs loop-basic and
 * context-simple, and context-simple takes the plan's `context.config`.
 * `source` (a git URL) is left out: fetching modules is not what this tests.
 */
function ours(plan: Record<string, unknown>, section: 'providers' | 'tools' | 'hooks'): ModuleSpec[] {
  const list = (plan[section] ?? []) as ModuleSpec[];
  return list
    .filter((spec) => known.has(spec.module))
    .map(({ module, config }) => ({ module, ...(config !== undefined && { config }) }));
}

async function open(name: string, cwd: string) {
  const raw = readPlan(name);
  const plan: MountPlan = {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    ...(raw.context !== undefined && { context: raw.context as MountPlan['context'] }),
    providers: ours(raw, 'providers'),
    tools: ours(raw, 'tools'),
    hooks: ours(raw, 'hooks'),
  };
  const logger = new RecordingLogger();
  const session = new AmplifierSession(plan, {
    loader: createLoader(cwd, { logger }),
    logger,
    baseDir: cwd,
    workingDir: cwd,
  });
  await session.initialize();
  expect(session.failures).toEqual([]);
  const mounted = plan.hooks!.length + plan.tools!.length + plan.providers!.length;
  expect(mounted).toBeGreaterThan(0);
  const unknownKeys = logger.problemsSince().filter((w) => w.includes('unknown config key'));
  expect(unknownKeys).toEqual([]);
  return { session, plan, logger };
}

describe('reference mount plans load through the real modules', () => {
  it('the development plan: tool-filesystem allowed_paths ["."], hooks-logging output_dir', async () => {
    const cwd = tempDir('amp-dev-plan-');
    const outside = tempDir('amp-dev-outside-');
    process.env.AMPLIFIER_HOME = tempDir('amp-home-');
    const { session, plan } = await open('core-spec-development-plan.json', cwd);
    expect(plan.tools!.map((t) => t.module)).toEqual(['tool-filesystem', 'tool-bash', 'tool-web']);
    expect(plan.hooks!.map((h) => h.module)).toEqual(['hooks-logging']);
    expect(session.coordinator.get('providers').has('anthropic')).toBe(true);
    const tools = session.coordinator.get('tools');
    const write = (file: string) => tools.get('write_file')!.execute({ file_path: file, content: 'x' });
    expect((await write('inside.txt')).success).toBe(true);
    const refused = await write(path.join(outside, 'x.txt'));
    expect(refused.error?.message).toContain('is not within allowed paths');
    await session.coordinator.hooks.emit('tool:pre', {
      tool_name: 'read_file',
      tool_call_id: 'c1',
      tool_input: {},
    });
    await session.cleanup();
    const log = path.join(cwd, '.amplifier/logs', session.sessionId, 'events.jsonl');
    expect(fs.readFileSync(log, 'utf8')).toContain('"event":"tool:pre"');
  });

  it('the production plan: allowed_paths ["/app/data"] bounds reads; context config accepted', async () => {
    const cwd = tempDir('amp-prod-plan-');
    fs.writeFileSync(path.join(cwd, 'here.txt'), 'here\n');
    process.env.AMPLIFIER_HOME = tempDir('amp-home-');
    const { session, logger } = await open('core-spec-production-plan.json', cwd);
    const read = await session.coordinator.get('tools').get('read_file')!.execute({ file_path: 'here.txt' });
    expect(read.error?.message).toContain('is not within allowed paths');
    expect(logger.problemsSince().join('\n')).toContain(
      "tool-filesystem: config key 'require_approval' is accepted",
    );
    await session.cleanup();
  });

  it('the foundation logging behavior: mode session-only and the session log template', async () => {
    const cwd = tempDir('amp-logging-plan-');
    const home = tempDir('amp-os-home-');
    process.env.HOME = home;
    const { session } = await open('foundation-behaviors-logging.yaml', cwd);
    await session.coordinator.hooks.emit('tool:pre', {
      tool_name: 'read_file',
      tool_call_id: 'c1',
      tool_input: {},
    });
    await session.cleanup();
    const slug = fs.readdirSync(path.join(home, '.amplifier', 'projects'));
    expect(slug).toHaveLength(1);
    const log = path.join(
      home,
      '.amplifier/projects',
      slug[0]!,
      'sessions',
      session.sessionId,
      'events.jsonl',
    );
    expect(fs.readFileSync(log, 'utf8')).toContain('"event":"tool:pre"');
  });
});
