import fs from 'node:fs';
import path from 'node:path';
import { checkData, type ResourceKey } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTree, mountTools, type Tree } from './__fixtures__/helpers.js';
import { parseConfig } from './config.js';
import { DEFAULT_MAX_READ_BYTES, mount, TOOL_NAMES } from './index.js';

let tree: Tree;
beforeEach(() => {
  tree = makeTree();
});
afterEach(() => tree.cleanup());

describe('mount (reference checklists)', () => {
  it('tool-filesystem #1 / tool-search #1: mount registers exactly read_file, write_file, edit_file, glob and grep', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, { working_dir: tree.ws });
    expect([...coordinator.get('tools').keys()]).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'glob',
      'grep',
    ]);
    expect(coordinator.mountHistory.map((m) => [m.mountPoint, m.name])).toEqual(
      TOOL_NAMES.map((n) => ['tools', n]),
    );
    await cleanup();
    expect(coordinator.get('tools').size).toBe(0);
  });

  it('tool-filesystem #2: without working_dir, relative paths resolve against the session.working_dir capability', async () => {
    fs.writeFileSync(path.join(tree.ws, 'rel.txt'), 'from capability\n');
    const tools = await mountTools({}, (c) => c.registerCapability('session.working_dir', tree.ws));
    try {
      expect((await tools.out('read_file', { file_path: 'rel.txt' })).content).toBe(
        '     1\tfrom capability',
      );
      await tools.out('write_file', { file_path: 'new.txt', content: 'x' });
      expect(fs.existsSync(path.join(tree.ws, 'new.txt'))).toBe(true);
    } finally {
      await tools.cleanup();
    }
  });

  it('tool-filesystem #21: an @mention without the mention_resolver capability fails with the reference message', async () => {
    const tools = await mountTools({ working_dir: tree.ws });
    try {
      const result = await tools.call('read_file', { file_path: '@bundle:notes.md' });
      expect(result.error?.message).toBe(
        '@mention paths require mention_resolver capability (not available)',
      );
    } finally {
      await tools.cleanup();
    }
  });
});

describe('@mentions', () => {
  it('resolve through mention_resolver (sync or async), then go through the sandbox', async () => {
    fs.writeFileSync(path.join(tree.ws, 'notes.md'), 'bundle notes\n');
    fs.mkdirSync(path.join(tree.ws, 'docs'));
    const map: Record<string, string> = {
      '@bundle:notes.md': path.join(tree.ws, 'notes.md'),
      '@bundle:docs': path.join(tree.ws, 'docs'),
      '@bundle:secret': tree.secret,
    };
    const tools = await mountTools({ working_dir: tree.ws, allowed_read_paths: [tree.ws] }, (c) =>
      c.registerCapability('mention_resolver', { resolve: async (m: string) => map[m] ?? null }),
    );
    try {
      expect((await tools.out('read_file', { file_path: '@bundle:notes.md' })).content).toBe(
        '     1\tbundle notes',
      );
      expect((await tools.call('read_file', { file_path: '@bundle:missing' })).error?.message).toBe(
        '@mention not found: @bundle:missing',
      );
      expect(
        (await tools.call('write_file', { file_path: '@bundle:docs', content: 'x' })).error?.message,
      ).toBe('Cannot write to directory: @bundle:docs');
      expect(
        (await tools.call('edit_file', { file_path: '@bundle:docs', old_string: 'a', new_string: 'b' })).error
          ?.message,
      ).toBe('Cannot edit directory: @bundle:docs');
      const secret = await tools.call('read_file', { file_path: '@bundle:secret' });
      expect(secret.error?.message).toBe('Access denied: @bundle:secret is not within allowed read paths');
      expect(JSON.stringify(secret)).not.toContain(tree.marker);
    } finally {
      await tools.cleanup();
    }
  });
});

describe('config', () => {
  it('a bad config fails mount with every problem named', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const error = await mount(coordinator, {
      max_read_bytes: 'big',
      allowed_write_paths: 'here',
      colour: 1,
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/^tool-filesystem: invalid config:/);
    expect(message).toContain('  - max_read_bytes must be integer');
    expect(message).toContain('  - allowed_write_paths must be array');
    expect(message).not.toContain('colour');
    expect(coordinator.get('tools').size).toBe(0);
  });

  it('an own `__proto__` key is an unknown key: warned about and ignored, nothing is loosened', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const plan = JSON.parse(
      `{"working_dir": ${JSON.stringify(tree.ws)}, "__proto__": {"allowed_write_paths": ["/"], "require_read_before_edit": false}}`,
    );
    const cleanup = await mount(coordinator, plan);
    expect(logger.problemsSince()).toEqual(["tool-filesystem: unknown config key '__proto__' is ignored"]);
    const write = await coordinator
      .get('tools')
      .get('write_file')!
      .execute({
        file_path: path.join(tree.outside, 'x.txt'),
        content: 'x',
      });
    expect(write.success).toBe(false);
    expect(({} as Record<string, unknown>).allowed_write_paths).toBeUndefined();
    await cleanup();
  });

  it('inherited keys are never read: the sandbox keeps its defaults', async () => {
    const loosening = {
      allowed_write_paths: ['/'],
      require_read_before_edit: false,
      max_read_bytes: 1e15,
      glob: { max_results: 1e9 },
    };
    const config = Object.assign(Object.create(loosening), { working_dir: tree.ws });
    const tools = await mountTools(config);
    try {
      const outside = path.join(tree.outside, 'x.txt');
      const write = await tools.call('write_file', { file_path: outside, content: 'x' });
      expect(write.error?.message).toBe(`Access denied: ${outside} is not within allowed write paths`);
      expect(fs.existsSync(outside)).toBe(false);
      fs.writeFileSync(path.join(tree.ws, 'a.txt'), 'x\n');
      const edit = await tools.call('edit_file', { file_path: 'a.txt', old_string: 'x', new_string: 'y' });
      expect(edit.error?.type).toBe('StaleRead');
    } finally {
      await tools.cleanup();
    }
    // Nested objects too: an inherited per-tool override is not an override.
    const parsed = parseConfig(
      { glob: Object.create({ max_results: 1e9 }), grep: Object.create({ timeout: 1e9 }) },
      tree.ws,
    );
    expect(parsed.glob.max_results).toBe(500);
    expect(parsed.grep.timeout).toBe(60);
    expect(parsed.max_read_bytes).toBe(DEFAULT_MAX_READ_BYTES);
  });

  it('per-tool overrides under grep and glob (the tool-search layout) apply', async () => {
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(tree.ws, `f${i}.txt`), 'hit\n');
    const tools = await mountTools({
      working_dir: tree.ws,
      max_results: 3,
      glob: { max_results: 2 },
      grep: { default_limits: { files_with_matches: 4 } },
    });
    try {
      expect(await tools.out('glob', { pattern: '*' })).toMatchObject({ count: 2, results_capped: true });
      expect(await tools.out('grep', { pattern: 'hit' })).toMatchObject({
        matches_count: 4,
        results_capped: true,
      });
    } finally {
      await tools.cleanup();
    }
  });
});

describe('every tool behaves like a tool', () => {
  it('execute({}) and junk input return a valid ToolResult with output = error.message, never throw', async () => {
    const tools = await mountTools({ working_dir: tree.ws });
    try {
      for (const name of TOOL_NAMES) {
        const tool = tools.coordinator.get('tools', name)!;
        expect(tool.description.length).toBeGreaterThan(20);
        expect(tool.inputSchema).toMatchObject({ type: 'object', required: expect.any(Array) });
        for (const input of [
          {},
          { file_path: 7, pattern: 7, path: 7 },
          { file_path: null, pattern: ['x'] },
        ]) {
          const result = await tool.execute(input as Record<string, unknown>);
          expect(checkData('tool-result', result)).toEqual([]);
          expect(result.success).toBe(false);
          expect(result.output).toBe(result.error?.message);
        }
      }
    } finally {
      await tools.cleanup();
    }
  });

  it('resource keys order a write under a directory after a grep of that directory, and let reads run together', async () => {
    const tools = await mountTools({ working_dir: tree.ws });
    const conflict = (a: readonly ResourceKey[], b: readonly ResourceKey[]): boolean =>
      a.some((x) => b.some((y) => x.key === y.key && (x.mode === 'write' || y.mode === 'write')));
    const keys = (name: string, input: Record<string, unknown>): readonly ResourceKey[] =>
      tools.coordinator.get('tools', name)!.executionProfile!.resourceKeys!(input);
    try {
      const grep = keys('grep', { pattern: 'x' });
      const glob = keys('glob', { pattern: '*', path: 'src' });
      const write = keys('write_file', { file_path: 'src/a.ts', content: '' });
      const edit = keys('edit_file', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' });
      const readA = keys('read_file', { file_path: 'src/a.ts' });
      const readB = keys('read_file', { file_path: 'src/b.ts' });
      expect(conflict(grep, write)).toBe(true);
      expect(conflict(glob, write)).toBe(true);
      expect(conflict(readA, write)).toBe(true);
      expect(conflict(write, edit)).toBe(true);
      expect(conflict(readA, readB)).toBe(false);
      expect(conflict(readA, grep)).toBe(false);
      expect(conflict(readB, write)).toBe(false);
    } finally {
      await tools.cleanup();
    }
  });
});
