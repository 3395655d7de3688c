/**
 * `context-persistent`, the reference's context-simple plus memory files,
 * resolves to this package through its manifest's alias (the real loader, from
 * the package folder): memory files become labelled system messages at mount,
 * in order, relative to the session's working directory; missing and empty
 * files are skipped with a warning.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Logger, type Message, ModuleLoader, silentLogger } from '@amplifier/core';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimpleContextManager } from './index.js';
import { mount, readMemoryFiles } from './index.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

let dir: string;
const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-persistent-')));
  warnings.length = 0;
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function mountAs(id: string, config: Record<string, unknown>) {
  const loader = new ModuleLoader({ baseDir: dir, searchPaths: [PACKAGE_DIR], logger: silentLogger });
  const loaded = await loader.load(id, config, { type: 'context' });
  const coordinator = createTestCoordinator({ bare: true, logger });
  coordinator.registerCapability('session.working_dir', dir);
  await loaded.mount(coordinator);
  return { loaded, context: coordinator.get('context') as SimpleContextManager };
}

const textOf = (messages: Message[]) => messages.map((m) => `${m.role}:${m.content as string}`);

describe('context-persistent (alias of context-simple)', () => {
  it('loads memory files as labelled system messages, in order, before the conversation', async () => {
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# Agents\nUse pnpm.\n');
    fs.mkdirSync(path.join(dir, 'docs'));
    fs.writeFileSync(path.join(dir, 'docs', 'PROJECT.md'), 'A kernel for agents.\n');
    fs.writeFileSync(path.join(dir, 'EMPTY.md'), '  \n');
    // The core spec's production plan's context config, plus memory files.
    const { loaded, context } = await mountAs('context-persistent', {
      max_tokens: 200000,
      compact_threshold: 0.92,
      memory_files: ['./AGENTS.md', 'MISSING.md', path.join(dir, 'docs', 'PROJECT.md'), 'EMPTY.md'],
    });
    expect(loaded).toMatchObject({ id: 'context-persistent', aliasOf: 'context-simple' });
    expect(context.config).toMatchObject({ max_tokens: 200000, compact_threshold: 0.92 });
    await context.addMessage({ role: 'user', content: 'hello' });
    const expected = [
      'system:[Context from AGENTS.md]\n\n# Agents\nUse pnpm.\n',
      'system:[Context from PROJECT.md]\n\nA kernel for agents.\n',
      'user:hello',
    ];
    expect(textOf(await context.getMessages())).toEqual(expected);
    expect(textOf(await context.getMessagesForRequest())).toEqual(expected);
    expect(warnings).toEqual([
      `context-simple: memory file not found, skipped: MISSING.md (${path.join(dir, 'MISSING.md')})`,
    ]);
  });

  it('keeps memory files in the request view when a system prompt factory replaces stored system prompts', async () => {
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), 'Remember this.');
    const { context } = await mountAs('context-persistent', { memory_files: ['AGENTS.md'] });
    await context.addMessage({ role: 'system', content: 'stored prompt' });
    await context.addMessage({ role: 'user', content: 'hi' });
    await context.setSystemPromptFactory(() => 'fresh prompt');
    expect(textOf(await context.getMessagesForRequest())).toEqual([
      'system:fresh prompt',
      'system:[Context from AGENTS.md]\n\nRemember this.',
      'user:hi',
    ]);
  });

  it('accepts the production plan of the core spec (auto_compact) with no memory files', async () => {
    const { context } = await mountAs('context-persistent', {
      max_tokens: 200000,
      compact_threshold: 0.95,
      auto_compact: true,
    });
    expect(await context.getMessages()).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('memory_files that is not a list of paths fails the mount saying what is expected', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    for (const memory_files of ['AGENTS.md', [1], ['']]) {
      await expect(mount(coordinator, { memory_files })).rejects.toThrow(
        /config key "memory_files" must be a list of file paths/,
      );
    }
    expect(coordinator.get('context')).toBeUndefined();
  });
});

describe('memory files go through the reference resolver (issue 37)', () => {
  const SECRET = 'SECRET-CONTENT-0xfeedface';
  let home: string;
  let outside: string;
  beforeEach(() => {
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-home-')));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-outside-')));
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), SECRET);
    fs.mkdirSync(path.join(home, '.amplifier'));
    fs.writeFileSync(path.join(home, '.amplifier', 'AGENTS.md'), 'User memory.');
    fs.writeFileSync(path.join(home, 'diary.md'), SECRET);
    fs.writeFileSync(path.join(outside, 'secret.md'), SECRET);
  });
  afterEach(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const read = (files: string[], roots: string[] = [dir]) =>
    readMemoryFiles(files, dir, logger, { roots, home, homeRoots: [path.join(home, '.amplifier')] });

  it.each([
    ['~/.ssh/id_rsa', /memory file '~\/\.ssh\/id_rsa' .* is refused: it resolves to .*outside/],
    ['~/diary.md', /is refused: it resolves to .*diary\.md, outside/],
    ['SECRET_ABS', /is refused: it resolves to .*secret\.md, outside/],
    ['../../../../../../../etc/passwd', /is refused: it resolves to \/etc\/passwd, outside/],
    ['.env', /is refused: .*\.env is a secret path/],
    ['link.md', /is refused: .*outside .*\(through a symlink\)/],
    ['fifo.md', /is refused: .*fifo\.md is not a regular file/],
  ])('%s is refused: the mount fails naming it, nothing is read', async (file, message) => {
    fs.writeFileSync(path.join(dir, '.env'), SECRET);
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(dir, 'link.md'));
    execFileSync('mkfifo', [path.join(dir, 'fifo.md')]);
    const ref = file === 'SECRET_ABS' ? path.join(outside, 'secret.md') : file;
    await expect(read([ref])).rejects.toThrow(message);
  });

  it('~/ reaches $AMPLIFIER_HOME (the user own folder); relative and absolute paths inside the working directory load', async () => {
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), 'Project memory.');
    const messages = await read(['~/.amplifier/AGENTS.md', './AGENTS.md', path.join(dir, 'AGENTS.md')]);
    expect(messages.map((m) => m.content)).toEqual([
      '[Context from AGENTS.md]\n\nUser memory.',
      '[Context from AGENTS.md]\n\nProject memory.',
      '[Context from AGENTS.md]\n\nProject memory.',
    ]);
  });

  it('the mount takes its roots from the session.reference_roots capability when the app registers one', async () => {
    fs.writeFileSync(path.join(outside, 'shared.md'), 'Shared memory.');
    const coordinator = createTestCoordinator({ bare: true, logger });
    coordinator.registerCapability('session.working_dir', dir);
    await expect(mount(coordinator, { memory_files: [path.join(outside, 'shared.md')] })).rejects.toThrow(
      /context-simple: The memory file .* is refused: it resolves to .*shared\.md, outside/,
    );
    expect(coordinator.get('context')).toBeUndefined();
    coordinator.registerCapability('session.reference_roots', [dir, outside]);
    await mount(coordinator, { memory_files: [path.join(outside, 'shared.md')] });
    const context = coordinator.get('context') as SimpleContextManager;
    expect(textOf(await context.getMessages())).toEqual([
      'system:[Context from shared.md]\n\nShared memory.',
    ]);
  });
});
