#!/usr/bin/env node
// `pnpm test`: every package's suite through turbo, then the root scripts' node tests.
// Turbo's cache key gets this Node's version (AMPLIFIER_TEST_NODE, a `test` env in turbo.json),
// so a pass recorded under one Node version is never replayed under another. Arguments go to
// turbo (`pnpm test -- --cache=local:w`). Exits with the first failure's status.
import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'node_modules', '.bin');
// turbo runs each package's script through pnpm: the workspace's own, from node_modules/.bin, also
// when this script is started without pnpm (`node scripts/test.mjs`, as CI's Node 24 pass does).
const env = {
  ...process.env,
  AMPLIFIER_TEST_NODE: process.version,
  PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
};
const turbo = join(bin, 'turbo');
const ROOT_TESTS = [
  'scripts/check-deps.test.mjs',
  'scripts/readme.test.mjs',
  'scripts/bundle-dist.test.mjs',
  'scripts/build.test.mjs',
];

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  if (result.error) {
    console.error(`test: could not run ${command}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run(turbo, ['run', 'test', ...process.argv.slice(2).filter((arg) => arg !== '--')]);
run(process.execPath, ['--test', ...ROOT_TESTS]);
