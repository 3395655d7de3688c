import fs from 'node:fs';
import path from 'node:path';
import { AmplifierError } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { makeTree, type Tree } from './__fixtures__/helpers.js';
import {
  CONFIG_SCHEMA,
  type FilesystemConfig,
  type FilesystemConfigInput,
  parseConfig,
  SEARCH_CONFIG_PROPERTIES,
} from './config.js';
import { mount } from './index.js';

let tree: Tree;
beforeEach(() => {
  tree = makeTree();
});
afterEach(() => tree.cleanup());

async function mounted(config: Record<string, unknown>, logger = new RecordingLogger()) {
  const coordinator = createTestCoordinator({ bare: true, logger });
  const cleanup = await mount(coordinator, { working_dir: tree.ws, ...config });
  const call = (name: string, input: Record<string, unknown>) =>
    coordinator.get('tools').get(name)!.execute(input);
  return { coordinator, cleanup, call, logger };
}

describe('config policy', () => {
  it('an unknown key warns once and the five tools mount', async () => {
    const logger = new RecordingLogger();
    const first = await mounted({ colour: 'blue' }, logger);
    const second = await mounted({ colour: 'red' }, logger);
    expect(first.coordinator.get('tools').size).toBe(5);
    expect(logger.problemsSince()).toEqual(["tool-filesystem: unknown config key 'colour' is ignored"]);
    await first.cleanup();
    await second.cleanup();
  });

  it('allowed_paths (the mount plan specification) bounds reads and writes to those roots', async () => {
    const data = path.join(tree.ws, 'data');
    fs.mkdirSync(data);
    fs.writeFileSync(path.join(tree.ws, 'top.txt'), 'top\n');
    const { call, cleanup, logger } = await mounted({ allowed_paths: ['data'], require_approval: true });
    expect((await call('write_file', { file_path: 'data/a.txt', content: 'a' })).success).toBe(true);
    const outsideWrite = await call('write_file', { file_path: 'b.txt', content: 'b' });
    expect(outsideWrite.error?.message).toMatch(/not within allowed (write )?paths/);
    const outsideRead = await call('read_file', { file_path: 'top.txt' });
    expect(outsideRead.error?.message).toMatch(/not within allowed (read )?paths/);
    expect((await call('read_file', { file_path: 'data/a.txt' })).success).toBe(true);
    expect(logger.problemsSince().join('\n')).toContain("config key 'require_approval' is accepted");
    await cleanup();
  });

  it('allowed_paths never widens explicit lists: a write must be inside both', async () => {
    fs.mkdirSync(path.join(tree.ws, 'data'));
    const { call, cleanup } = await mounted({
      allowed_paths: ['data'],
      allowed_write_paths: [tree.ws, tree.outside],
    });
    expect((await call('write_file', { file_path: 'data/ok.txt', content: 'x' })).success).toBe(true);
    const out = await call('write_file', { file_path: path.join(tree.outside, 'x.txt'), content: 'x' });
    expect(out.error?.message).toContain('is not within allowed paths');
    expect(fs.existsSync(path.join(tree.outside, 'x.txt'))).toBe(false);
    await cleanup();
  });

  it('allowed_write_files allows exactly those files; alone, nothing else is writable', async () => {
    const { call, cleanup } = await mounted({ allowed_write_files: ['notes.md'] });
    expect((await call('write_file', { file_path: 'notes.md', content: 'x' })).success).toBe(true);
    const other = await call('write_file', { file_path: 'other.md', content: 'x' });
    expect(other.error?.message).toContain('is not within allowed write paths');
    const below = await call('write_file', { file_path: 'notes.md/x', content: 'x' });
    expect(below.success).toBe(false);
    await cleanup();
  });

  it('allowed_write_files adds to explicit allowed_write_paths', async () => {
    fs.mkdirSync(path.join(tree.ws, 'out'));
    const { call, cleanup } = await mounted({
      allowed_write_paths: ['out'],
      allowed_write_files: [path.join(tree.outside, 'one.txt')],
    });
    expect((await call('write_file', { file_path: 'out/a.txt', content: 'x' })).success).toBe(true);
    const one = await call('write_file', { file_path: path.join(tree.outside, 'one.txt'), content: 'x' });
    expect(one.success).toBe(true);
    expect((await call('write_file', { file_path: 'top.txt', content: 'x' })).success).toBe(false);
    await cleanup();
  });

  it('a misspelt path list is refused with the reason, never ignored', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    for (const key of ['denied_path', 'allowed_read_path', 'Denied-Write-Paths']) {
      const error = await mount(coordinator, { [key]: ['/etc'] }).catch((e: unknown) => e);
      expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
      expect((error as Error).message).toContain(`'${key}' is refused`);
      expect((error as Error).message).toContain('ignoring it would let the tools read or write more');
    }
    expect(coordinator.get('tools').size).toBe(0);
  });
});

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<FilesystemConfigInput['allowed_read_paths']>().toEqualTypeOf<string[] | null | undefined>();
    expectTypeOf<FilesystemConfig['grep']['default_limits']>().toEqualTypeOf<{
      files_with_matches: number;
      content: number;
      count: number;
    }>();
    // @ts-expect-error grep.timeout is a number of seconds, not a string
    const bad: FilesystemConfigInput = { grep: { timeout: '5' } };
    expect(() => parseConfig(bad, tree.ws)).toThrow(/timeout/);
  });

  it('writes the search keys once: the top level, glob and grep all use SEARCH_CONFIG_PROPERTIES', () => {
    const { properties } = CONFIG_SCHEMA;
    expect(properties.glob.properties).toBe(SEARCH_CONFIG_PROPERTIES);
    expect(properties.grep.properties).toBe(SEARCH_CONFIG_PROPERTIES);
    for (const [key, schema] of Object.entries(SEARCH_CONFIG_PROPERTIES)) {
      expect(Reflect.get(properties, key)).toBe(schema);
    }
    expectTypeOf<NonNullable<FilesystemConfigInput['glob']>>().toEqualTypeOf<
      NonNullable<FilesystemConfigInput['grep']>
    >();
    expectTypeOf<FilesystemConfigInput['timeout']>().toEqualTypeOf<number | undefined>();
  });
});
