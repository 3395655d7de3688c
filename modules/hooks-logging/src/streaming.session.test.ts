/**
 * Whole sessions with a streaming provider: the real loop-basic, context-simple
 * and provider-mock (dev dependencies; modules never import each other) and
 * this module. provider-mock declares its stream events on
 * `observability.events`; the default `exclude_events` (`llm:stream_*delta`)
 * keeps the structural events (start, end, aborted) and drops the deltas.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, type ModuleLoaderLike, type MountFunction, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { mount as mountMock } from '@amplifier/provider-mock';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mount, onSessionReady } from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hooks-logging-stream-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const MOUNTS: Record<string, MountFunction> = {
  'loop-basic': mountLoop,
  'context-simple': mountContext,
  'provider-mock': mountMock,
  'hooks-logging': mount,
};

/** The modules above in process, with hooks-logging's onSessionReady (it collects the declared events). */
const loader: ModuleLoaderLike = {
  async load(id, config = {}) {
    return {
      id,
      type: undefined,
      mount: async (coordinator) => MOUNTS[id]!(coordinator, config),
      ...(id === 'hooks-logging' && { onSessionReady }),
    };
  },
};

async function run(
  logging: Record<string, unknown>,
  mock: Record<string, unknown>,
  abortOnFirstDelta = false,
): Promise<string[]> {
  const sessionId = `stream-${Object.keys(logging).length}-${abortOnFirstDelta}`;
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: mock }],
      hooks: [
        {
          module: 'hooks-logging',
          config: { session_log_template: path.join(tmp, '{session_id}.jsonl'), ...logging },
        },
      ],
    },
    { loader, logger: silentLogger, sessionId },
  );
  {
    await using _ = session;
    await session.initialize();
    const controller = new AbortController();
    if (abortOnFirstDelta) {
      session.coordinator.hooks.register('llm:stream_block_delta', async () => {
        controller.abort(new Error('ctrl-c'));
        return { action: 'continue' };
      });
    }
    await session.execute('Say hello.', { signal: controller.signal }).catch(() => undefined);
  }
  return readFileSync(path.join(tmp, `${sessionId}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { event: string }).event)
    .filter((event) => event.startsWith('llm:'));
}

const SCRIPT = { script: ['Hello from the mock, streamed in fragments.'], stream_chunk_chars: 8 };

it('by default: block start and end are logged, the deltas are not', async () => {
  expect(await run({}, SCRIPT)).toEqual([
    'llm:request',
    'llm:stream_block_start',
    'llm:stream_block_end',
    'llm:response',
  ]);
});

it('exclude_events: [] logs the deltas too', async () => {
  expect(await run({ exclude_events: [] }, SCRIPT)).toEqual([
    'llm:request',
    'llm:stream_block_start',
    ...Array(6).fill('llm:stream_block_delta'),
    'llm:stream_block_end',
    'llm:response',
  ]);
});

it('a turn cancelled mid-stream: llm:stream_aborted is logged, the delta before it is not', async () => {
  // An hour between fragments: the turn ends only because the cancellation aborts the pause.
  expect(await run({}, { ...SCRIPT, stream_delay: 3600 }, true)).toEqual([
    'llm:request',
    'llm:stream_block_start',
    'llm:stream_aborted',
    'llm:response',
  ]);
});
