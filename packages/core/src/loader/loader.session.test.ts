import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Logger } from '../contracts.js';
import { AmplifierSession } from '../session.js';
import { fixtureLog, makeTempDir, removeDir, writeSessionProject } from './__fixtures__/trees.js';
import { clearDiscoveryCache } from './discovery.js';

let root: string;
const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };

beforeEach(() => {
  root = makeTempDir('amp-e2e-');
  warnings.length = 0;
  clearDiscoveryCache();
});
afterEach(() => {
  clearDiscoveryCache();
  removeDir(root);
});

it('end to end: a session with baseDir at a temp project loads orchestrator, context, provider, tool and hook from its node_modules, runs a turn and cleans up', async () => {
  const plan = writeSessionProject(root);
  const log = fixtureLog();
  const eventsBefore = log.events.length;
  const session = new AmplifierSession(plan, { baseDir: root, logger, workingDir: root });
  let answer: string;
  try {
    answer = await session.execute('please echo');
  } finally {
    await session.cleanup();
  }
  expect(answer).toBe('The tool said: echo: ping');
  expect(session.failures).toEqual([]);
  expect(warnings).toEqual([]);

  // Every module was imported from where its layout puts it, with its own config.
  const mounted = Object.fromEntries(
    log.mounts.filter((m) => m.url.includes(pathToFileURL(root).href)).map((m) => [m.id, m]),
  );
  const nm = path.join(root, 'node_modules');
  expect(mounted['e2e-loop']?.url).toBe(
    pathToFileURL(path.join(nm, '@amplifier', 'e2e-loop', 'index.js')).href,
  );
  expect(mounted['e2e-context']?.url).toBe(
    pathToFileURL(
      path.join(
        nm,
        '.pnpm',
        '@amplifier+e2e-context@1.0.0',
        'node_modules',
        '@amplifier',
        'e2e-context',
        'index.js',
      ),
    ).href,
  );
  expect(mounted['e2e-context']?.config).toEqual({ keep: 10 });
  expect(mounted['provider-e2e']?.config).toEqual({ say: 'ping' });
  expect(mounted['tool-echo-e2e']?.url).toBe(pathToFileURL(path.join(nm, 'acme-echo-tool', 'index.js')).href);
  expect(mounted['hooks-record-e2e']?.url).toBe(
    pathToFileURL(path.join(root, 'local-hooks', 'index.js')).href,
  );
  expect(log.ready).toContain('hooks-record-e2e');

  expect(log.events.slice(eventsBefore)).toEqual([
    'hook:session:start',
    'provider:complete:user',
    'hook:tool:pre',
    'hook:tool:post',
    'provider:complete:tool',
    'hook:session:end',
    // cleanups run LIFO: hook, tool, provider, context, orchestrator
    'cleanup:hooks-record-e2e',
    'cleanup:tool-echo-e2e',
    'cleanup:provider-e2e',
    'cleanup:e2e-context',
    'cleanup:e2e-loop',
  ]);
});
