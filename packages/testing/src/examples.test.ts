/**
 * The README's examples, shown verbatim and run. `__fixtures__/readme/module/`
 * is the hello module of core's README with its test file (which vitest runs
 * as one of this package's tests); the validation example checks it installed
 * in a project (compiled from its TypeScript, as `tsc` would).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { clearDiscoveryCache } from '@amplifier/core';
import { codeBlocks, shownExample, writeFiles } from '@amplifier/test-fixtures';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(SRC, '__fixtures__/readme');
const README = readFileSync(path.join(SRC, '../README.md'), 'utf8');
const IMPORTS = {
  [path.join(SRC, 'index.js')]: '@amplifier/testing',
  [path.join(SRC, 'validation/index.js')]: '@amplifier/testing/validation',
};

describe('README', () => {
  it.each(['module/index.test.ts', 'validation.ts'])('shows %s exactly as tested', (file) => {
    const code = shownExample(path.join(FIXTURES, file), IMPORTS);
    expect(
      codeBlocks(README).some((b) => b.code === code),
      `README.md has no block equal to:\n${code}`,
    ).toBe(true);
  });
});

describe('README examples with an installed module', () => {
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(path.join(os.tmpdir(), 'amp-testing-readme-'));
    const source = readFileSync(path.join(FIXTURES, 'module/index.ts'), 'utf8');
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    // The module imports core at run time: the built core, re-exported by file URL (a package
    // import from inside vitest would pick core's sources).
    const coreDist = path.join(SRC, '../node_modules/@amplifier/core/dist/index.js');
    writeFiles(project, {
      'package.json': JSON.stringify({
        name: 'my-app',
        type: 'module',
        dependencies: { 'amplifier-module-hello': '*' },
      }),
      'node_modules/amplifier-module-hello/package.json': JSON.stringify({
        name: 'amplifier-module-hello',
        version: '1.0.0',
        type: 'module',
        exports: './dist/index.js',
        amplifier: { module: 'hello', type: 'tool' },
        peerDependencies: { '@amplifier/core': '>=0.1.0' },
      }),
      'node_modules/amplifier-module-hello/dist/index.js': js,
      'node_modules/@amplifier/core/package.json': JSON.stringify({
        name: '@amplifier/core',
        type: 'module',
        exports: './index.js',
      }),
      'node_modules/@amplifier/core/index.js': `export * from ${JSON.stringify(pathToFileURL(coreDist).href)};\n`,
    });
    clearDiscoveryCache();
  });

  afterAll(() => {
    clearDiscoveryCache();
    rmSync(project, { recursive: true, force: true });
  });

  it('validation: the module passes; validated as the wrong type it fails on module_type', async () => {
    const { checkHello } = await import('./__fixtures__/readme/validation.js');
    const { result, broken } = await checkHello(project);
    expect(result.passed).toBe(true);
    expect(result.summary()).toBe('PASSED: 15/15 checks passed (0 errors, 0 warnings)');
    expect(result.report()).toContain('✓ tool_execute_empty_input:');
    expect(result.report()).not.toContain('✓ [');
    expect(broken.errors.map((c) => c.name)).toEqual(['module_type']);
    expect(broken.errors[0]?.message).toContain("the package declares type 'tool'");
  });
});
