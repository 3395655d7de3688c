/**
 * in-code.mjs: a session composed from imported module objects and a
 * defineTool tool runs a scripted turn from a directory that has no
 * package.json and no node_modules (nothing is looked for on disk).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const appDir = dirname(dirname(fileURLToPath(import.meta.url)));

test('in-code.mjs runs its turn from an empty directory', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'example-in-code-'));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(appDir, 'in-code.mjs')], {
      cwd: empty,
      env: { ...process.env, AMPLIFIER_MODULES: '' },
    });
    assert.equal(stdout, 'tool word_count: {"words":7}\nanswer: Seven words.\n');
    assert.equal(stderr, '');
    assert.deepEqual(readdirSync(empty), []);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
