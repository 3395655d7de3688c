/**
 * The runner draws a turn from the session's turn stream: during a turn the
 * only handlers on the session's hooks are the modules' and the stream's
 * (`session-stream`), none of the CLI's own; a call a hook denies is still
 * shown, from the stream's `tool_denied` item.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import { TURN_PROGRESS_EVENTS, TURN_STREAM_EVENTS } from '@amplifier/server/stream';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir, writeFile } from './__fixtures__/cli.js';
import { Display } from './display.js';
import { resolvePlan } from './plan.js';
import { SessionRunner } from './runner.js';
import { SessionStore } from './sessions.js';

afterEach(removeTempDirs);

function sink(): Writable & { text: string; isTTY: boolean } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Writable & { text: string; isTTY: boolean };
  stream.text = '';
  stream.isTTY = false;
  return stream;
}

async function openRunner(json: boolean) {
  const cwd = tempDir();
  const home = tempDir();
  writeFile(path.join(cwd, 'a.txt'), 'alpha\n');
  const planFile = writeFile(
    path.join(cwd, 'plan.yaml'),
    [
      'session: { orchestrator: loop-basic, context: context-simple }',
      'providers:',
      '  - module: provider-mock',
      '    config:',
      '      script:',
      '        - tool_calls:',
      '            - { id: c1, name: read_file, arguments: { file_path: a.txt } }',
      '            - { id: c2, name: read_file, arguments: { file_path: secret.txt } }',
      '        - text: all read',
      'tools: [{ module: tool-filesystem }]',
    ].join('\n'),
  );
  const stdout = sink();
  const stderr = sink();
  const display = new Display({ stdout, stderr, json, env: {} });
  const runner = await SessionRunner.open({
    resolved: resolvePlan({ planFile, cwd, env: {} }),
    cwd,
    display,
    store: new SessionStore(home),
    interactive: false,
    remember: { provider: null, model: null, max_iterations: null },
  });
  return { runner, stdout, stderr };
}

describe('SessionRunner: the display draws the turn stream', () => {
  it('registers no handler of its own during a turn; the stream shows the calls, a denied one too', async () => {
    const { runner, stdout, stderr } = await openRunner(false);
    try {
      const hooks = runner.session.coordinator.hooks;
      const during: Record<string, string[]>[] = [];
      hooks.register(
        'tool:pre',
        (_event, data) => {
          during.push(hooks.listHandlers());
          return data.tool_call_id === 'c2' ? { action: 'deny', reason: 'not that file' } : undefined;
        },
        { name: 'probe' },
      );
      const outcome = await runner.turn('read them');
      expect(outcome).toMatchObject({ status: 'completed', answer: 'all read' });
      expect(during).toHaveLength(2);
      const names = new Set(Object.values(during[0]!).flat());
      // Only the stream's handlers and the test's own: no `cli-display*` (or any other) handler.
      expect([...names].sort()).toEqual(['probe', 'session-stream']);
      const streamed = Object.entries(during[0]!)
        .filter(([, list]) => list.includes('session-stream'))
        .map(([event]) => event)
        .sort();
      expect(streamed).toEqual([...TURN_STREAM_EVENTS, ...TURN_PROGRESS_EVENTS].sort());
      // One handler per event: the turn's stream, not a second watcher of the CLI's.
      for (const list of Object.values(during[0]!)) {
        expect(list.filter((name) => name === 'session-stream').length).toBeLessThanOrEqual(1);
      }
      // After the turn, nothing of it is left.
      expect(Object.values(hooks.listHandlers()).flat()).toEqual(['probe']);
      expect(stderr.text).toMatch(/✓ read_file a\.txt/);
      expect(stderr.text).toMatch(
        /→ read_file secret\.txt\n.*✗ read_file secret\.txt .* Denied by hook: not that file/,
      );
      runner.display.answer(outcome.answer);
      expect(stdout.text).toBe('all read\n');
    } finally {
      await runner.close();
    }
  });

  it('with --json, only the raw dump of every hook event is registered besides the stream', async () => {
    const { runner, stdout } = await openRunner(true);
    try {
      const hooks = runner.session.coordinator.hooks;
      const before = new Set(Object.values(hooks.listHandlers()).flat());
      expect([...before]).toEqual(['cli-display-json']);
      await runner.turn('read them');
      const events = stdout.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; event?: string });
      expect(events.filter((e) => e.type === 'event').map((e) => e.event)).toContain('tool:post');
      expect(events.at(-1)).toMatchObject({ type: 'result', status: 'completed', response: 'all read' });
    } finally {
      await runner.close();
    }
  });
});
