import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DurableError } from './durable-error.js';
import {
  findRestateServerBinary,
  missingServerMessage,
  SERVER_BIN_ENV,
  startLocalRestate,
} from './local-server.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'amplifier-restate-bin-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it('a binary named in the environment that does not exist is no binary', () => {
  expect(findRestateServerBinary({ [SERVER_BIN_ENV]: path.join(dir, 'nope') })).toBeUndefined();
});

it('without a binary the message says how to install it or use an existing cluster', () => {
  const message = missingServerMessage();
  expect(message).toContain('@restatedev/restate-server');
  expect(message).toContain('--restate-admin-url');
  expect(message).toContain('RESTATE_INGRESS_URL');
});

it('a server that exits at once is reported with how to see why', async () => {
  const fake = path.join(dir, 'restate-server');
  await writeFile(fake, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
  const error = await startLocalRestate({ baseDir: dir, binary: fake }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DurableError);
  expect((error as DurableError).code).toBe('RESTATE_SERVER_FAILED');
  expect((error as DurableError).message).toContain('--base-dir');
});
