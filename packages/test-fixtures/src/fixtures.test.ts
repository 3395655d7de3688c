import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  codeBlocks,
  depthOf,
  nestedJson,
  nestedValue,
  randomDeepValue,
  seededRandom,
  shownExample,
  startReadyChild,
  waitFor,
  writeFiles,
  writePackage,
} from './index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'amp-fixtures-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('deep values', () => {
  it('nestedValue nests objects or arrays exactly depth levels, far past the stack', () => {
    expect(nestedValue(2)).toEqual({ a: { a: 'leaf' } });
    expect(nestedValue(2, { array: true, leaf: 1 })).toEqual([[1]]);
    expect(depthOf(nestedValue(100_000))).toBe(100_000);
    expect(depthOf('text')).toBe(0);
  });

  it('nestedJson is the JSON text of nestedValue', () => {
    expect(JSON.parse(nestedJson(3))).toEqual(nestedValue(3, { leaf: 1 }));
  });

  it('seededRandom and randomDeepValue repeat for a seed and differ across seeds', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    for (const n of first) expect(n >= 0 && n < 1).toBe(true);
    expect(randomDeepValue(3, { depth: 50 })).toEqual(randomDeepValue(3, { depth: 50 }));
    expect(depthOf(randomDeepValue(3, { depth: 50 }))).toBe(50);
    expect(randomDeepValue(3, { depth: 50 })).not.toEqual(randomDeepValue(4, { depth: 50 }));
  });

  it('randomDeepValue writes __proto__ as an own key, never as a prototype', () => {
    const seen: string[] = [];
    for (let seed = 0; seed < 40; seed++) {
      const stack: unknown[] = [randomDeepValue(seed, { depth: 20 })];
      while (stack.length > 0) {
        const item = stack.pop();
        if (typeof item !== 'object' || item === null) continue;
        if (!Array.isArray(item)) expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
        for (const key of Object.keys(item)) seen.push(key);
        stack.push(...Object.values(item));
      }
    }
    expect(seen).toContain('__proto__');
  });
});

describe('waiting', () => {
  it('waitFor resolves true once the condition holds, false when the time is up', async () => {
    let calls = 0;
    expect(await waitFor(() => ++calls >= 3, { intervalMs: 0 })).toBe(true);
    expect(calls).toBe(3);
    expect(await waitFor(() => false, { timeoutMs: 0 })).toBe(false);
    await expect(
      waitFor(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
  });

  it('startReadyChild gives the first JSON line, then kills the child', async () => {
    const child = startReadyChild<{ pid: number }>(process.execPath, [
      '-e',
      'console.log(JSON.stringify({ pid: process.pid })); setInterval(() => {}, 1000);',
    ]);
    const ready = await child.ready;
    expect(typeof ready.pid).toBe('number');
    expect(await child.kill('SIGKILL')).toBe('SIGKILL');
  });

  it('startReadyChild rejects with stderr when the child exits before it is ready', async () => {
    const child = startReadyChild(process.execPath, ['-e', 'console.error("no luck"); process.exit(3)']);
    await expect(child.ready).rejects.toThrow('no luck');
  });
});

describe('package trees', () => {
  it('writePackage writes package.json with the amplifier field and a loadable entry', async () => {
    const pkgDir = writePackage(path.join(dir, 'node_modules/amplifier-module-demo'), {
      name: 'amplifier-module-demo',
      type: 'tool',
    });
    const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: 'amplifier-module-demo',
      amplifier: { module: 'demo', type: 'tool' },
    });
    const calls: unknown[] = [];
    const entry = await import(path.join(pkgDir, 'index.js'));
    await entry.mount(
      { registerCapability: (name: string, value: unknown) => calls.push([name, value]) },
      { x: 1 },
    );
    expect(calls).toEqual([['fixture.demo', { x: 1 }]]);
  });

  it('writeFiles writes text as is and objects as JSON', () => {
    writeFiles(dir, { 'a/b.txt': 'hi', 'c.json': { n: 1 } });
    expect(readFileSync(path.join(dir, 'a/b.txt'), 'utf8')).toBe('hi');
    expect(JSON.parse(readFileSync(path.join(dir, 'c.json'), 'utf8'))).toEqual({ n: 1 });
  });
});

describe('README examples', () => {
  it('codeBlocks finds fenced blocks with their language', () => {
    expect(codeBlocks('text\n```ts\nconst a = 1;\n```\n\n```\nplain\n```\n')).toEqual([
      { lang: 'ts', code: 'const a = 1;\n' },
      { lang: '', code: 'plain\n' },
    ]);
  });

  it('shownExample keeps the readme region and writes mapped relative imports as package imports', () => {
    const file = path.join(dir, 'src/__fixtures__/example.ts');
    writeFiles(dir, {
      'src/__fixtures__/example.ts': [
        "import { helper } from './local.js';",
        '// #region readme',
        "import { thing } from '../index.js';",
        'thing();',
        '// #endregion',
        '',
      ].join('\n'),
    });
    expect(existsSync(file)).toBe(true);
    expect(shownExample(file, { [path.join(dir, 'src/index.js')]: '@acme/pkg' })).toBe(
      "import { thing } from '@acme/pkg';\nthing();\n",
    );
    writeFileSync(file, "import { helper } from './local.js';\n");
    expect(shownExample(file, {})).toBe("import { helper } from './local.js';\n");
  });

  it('shownExample writes a mapped module augmentation as one of the package', () => {
    const file = path.join(dir, 'src/__fixtures__/augment.ts');
    writeFiles(dir, {
      'src/__fixtures__/augment.ts': [
        "import type { Thing } from '../index.js';",
        "declare module '../index.js' {",
        '  interface Thing { extra: true }',
        '}',
        "declare module './local.js' {}",
        '',
      ].join('\n'),
    });
    expect(shownExample(file, { [path.join(dir, 'src/index.js')]: '@acme/pkg' })).toBe(
      [
        "import type { Thing } from '@acme/pkg';",
        "declare module '@acme/pkg' {",
        '  interface Thing { extra: true }',
        '}',
        "declare module './local.js' {}",
        '',
      ].join('\n'),
    );
  });
});
