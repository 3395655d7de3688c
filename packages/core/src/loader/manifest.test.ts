import path from 'node:path';
import { type PackageSpec, writeFiles, writePackage } from '@amplifier/test-fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AmplifierError } from '../errors.js';
import { makeTempDir, removeDir } from './__fixtures__/trees.js';
import { readModulePackage, resolveEntry } from './manifest.js';

let root: string;
beforeEach(() => {
  root = makeTempDir('amp-manifest-');
});
afterEach(() => removeDir(root));

function thrown(fn: () => unknown): AmplifierError {
  try {
    fn();
  } catch (error) {
    if (AmplifierError.is(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('the "amplifier" package.json field (validated by its schema)', () => {
  it('reads a valid field with the package name, version and description', () => {
    const dir = writePackage(path.join(root, 'p'), {
      name: '@acme/bash',
      id: 'tool-bash',
      version: '2.3.4',
      description: 'Runs commands',
    });
    const found = readModulePackage(dir);
    expect(found).toMatchObject({
      manifest: { module: 'tool-bash', type: 'tool' },
      packageName: '@acme/bash',
      version: '2.3.4',
      description: 'Runs commands',
      dir,
    });
  });

  it('returns undefined for a package without the field', () => {
    const dir = writePackage(path.join(root, 'p'), { name: 'left-pad', amplifier: null });
    expect(readModulePackage(dir)).toBeUndefined();
  });

  it('rejects an unknown key, naming package.json and the JSON path', () => {
    const dir = writePackage(path.join(root, 'p'), {
      name: 'amplifier-module-x',
      amplifier: { module: 'x', type: 'tool', entyr: './index.js' },
    });
    const error = thrown(() => readModulePackage(dir));
    expect(error.code).toBe('MODULE_INVALID_MANIFEST');
    expect(error.message).toContain(path.join(dir, 'package.json'));
    expect(error.message).toContain('amplifier.entyr is not allowed (unknown key)');
  });

  it('rejects a bad type, naming the JSON path and the allowed values', () => {
    const dir = writePackage(path.join(root, 'p'), { name: 'm', amplifier: { module: 'x', type: 'tools' } });
    const error = thrown(() => readModulePackage(dir));
    expect(error.message).toContain(path.join(dir, 'package.json'));
    expect(error.message).toMatch(/amplifier\.type must be one of "orchestrator", .*"resolver"/);
  });

  it('rejects a missing module id and a field that is not an object', () => {
    const missing = writePackage(path.join(root, 'a'), { name: 'a', amplifier: { type: 'tool' } });
    expect(thrown(() => readModulePackage(missing)).message).toContain('amplifier.module is required');
    const notObject = writePackage(path.join(root, 'b'), { name: 'b', amplifier: 'tool' });
    expect(thrown(() => readModulePackage(notObject)).message).toContain('amplifier must be object');
  });

  it('rejects a module id that is not a plain lowercase name', () => {
    const dir = writePackage(path.join(root, 'p'), {
      name: 'm',
      amplifier: { module: 'Tool Bash', type: 'tool' },
    });
    expect(thrown(() => readModulePackage(dir)).message).toContain('amplifier.module must match pattern');
  });

  it('reports a package.json that is not valid JSON, naming the file', () => {
    writeFiles(root, { 'p/package.json': '{ "name": "m", ' });
    const error = thrown(() => readModulePackage(path.join(root, 'p')));
    expect(error.code).toBe('MODULE_INVALID_MANIFEST');
    expect(error.message).toContain(path.join(root, 'p', 'package.json'));
    expect(error.message).toContain('not valid JSON');
  });
});

describe('the entry file', () => {
  function entryOf(spec: PackageSpec): string {
    return resolveEntry(readModulePackage(writePackage(path.join(root, 'p'), spec))!);
  }

  it('uses the import/default condition of exports["."], never types or other conditions', () => {
    const entry = entryOf({
      name: 'm',
      packageJson: {
        exports: {
          '.': {
            '@amplifier/source': './src/index.ts',
            types: './dist/index.d.ts',
            require: './dist/index.cjs',
            import: './dist/index.js',
          },
        },
      },
      files: { 'dist/index.js': 'export function mount() {}', 'src/index.ts': '', 'dist/index.cjs': '' },
    });
    expect(entry).toBe(path.join(root, 'p', 'dist', 'index.js'));
  });

  it('honours exports sugar, main with legacy extension lookup, and index.js', () => {
    expect(entryOf({ name: 'a', packageJson: { exports: './lib/a.js' }, files: { 'lib/a.js': '' } })).toBe(
      path.join(root, 'p', 'lib', 'a.js'),
    );
    removeDir(path.join(root, 'p'));
    expect(entryOf({ name: 'b', packageJson: { main: 'lib/b' }, files: { 'lib/b.js': '' } })).toBe(
      path.join(root, 'p', 'lib', 'b.js'),
    );
    removeDir(path.join(root, 'p'));
    expect(entryOf({ name: 'c', packageJson: { main: 'lib' }, files: { 'lib/index.js': '' } })).toBe(
      path.join(root, 'p', 'lib', 'index.js'),
    );
    removeDir(path.join(root, 'p'));
    expect(entryOf({ name: 'd', packageJson: { main: undefined }, files: { 'index.js': '' } })).toBe(
      path.join(root, 'p', 'index.js'),
    );
  });

  it('follows amplifier.entry as an export subpath, or as a file', () => {
    expect(
      entryOf({
        name: 'a',
        amplifier: { module: 'a', type: 'tool', entry: './module' },
        packageJson: { exports: { '.': './index.js', './module': { import: './dist/module.js' } } },
        files: { 'index.js': '', 'dist/module.js': '' },
      }),
    ).toBe(path.join(root, 'p', 'dist', 'module.js'));
    removeDir(path.join(root, 'p'));
    expect(
      entryOf({
        name: 'b',
        amplifier: { module: 'b', type: 'tool', entry: './dist/mount.js' },
        files: { 'dist/mount.js': '' },
      }),
    ).toBe(path.join(root, 'p', 'dist', 'mount.js'));
  });

  it('says to build the package when the entry file is missing (unbuilt package)', () => {
    const error = thrown(() =>
      entryOf({ name: '@amplifier/tool-x', packageJson: { main: './dist/index.js' }, files: {} }),
    );
    expect(error.message).toContain(path.join(root, 'p', 'dist', 'index.js'));
    expect(error.message).toMatch(/not built: run its build/);
    expect(error.message).toContain('pnpm --filter @amplifier/tool-x build');
  });

  it('refuses an entry that points outside the package', () => {
    const error = thrown(() =>
      entryOf({ name: 'm', amplifier: { module: 'm', type: 'tool', entry: '../../etc/passwd' } }),
    );
    expect(error.code).toBe('MODULE_INVALID_MANIFEST');
    expect(error.message).toContain('points outside its package');
  });
});
