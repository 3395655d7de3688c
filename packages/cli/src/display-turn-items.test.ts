/**
 * The display renders a turn from its turn items (`TurnEvent`): fed
 * only a `streamTurn()` of a real session, or only items, it shows what
 * the items say, never the hook events behind them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { AmplifierSession } from '@amplifier/core';
import { streamTurn, type TurnEvent } from '@amplifier/server/stream';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './__fixtures__/cli.js';
import { Display } from './display.js';

const CLI_DIR = fileURLToPath(new URL('../', import.meta.url));

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

async function* items(list: TurnEvent[]): AsyncGenerator<TurnEvent> {
  for (const item of list) yield item;
}

describe('Display fed turn items', () => {
  it("shows a real session's stream: the tool input after the hooks changed it, the answer once", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'other.txt'), 'other\n');
    const session = new AmplifierSession(
      {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [
          {
            module: 'provider-mock',
            config: {
              script: [
                { tool_calls: [{ id: 'c1', name: 'read_file', arguments: { file_path: 'asked.txt' } }] },
                'All read',
              ],
            },
          },
        ],
        tools: [{ module: 'tool-filesystem' }],
      },
      { baseDir: CLI_DIR, workingDir: cwd, logger: { debug() {}, info() {}, warn() {}, error() {} } },
    );
    try {
      await session.initialize();
      // A hook changes the call's input: the hook event the tool gets differs from the one emitted.
      session.coordinator.hooks.register(
        'tool:pre',
        (_name, data) => ({ action: 'modify', data: { ...data, tool_input: { file_path: 'other.txt' } } }),
        { priority: 0, name: 'rewrite' },
      );
      const stdout = sink();
      const stderr = sink();
      const display = new Display({ stdout, stderr, env: {}, verbose: true });
      display.beginTurn();
      const answer = await display.show(streamTurn(session, 'go', { progress: true }));
      display.endTurn();
      display.answer(answer);
      expect(answer).toBe('All read');
      // Nothing of the display is on the hooks: every line came from the stream.
      const handlers = Object.values(session.coordinator.hooks.listHandlers()).flat();
      expect(handlers.filter((name) => name.startsWith('cli-display'))).toEqual([]);
      expect(stderr.text).toContain('… waiting for mock');
      expect(stderr.text).toMatch(/✓ read_file other\.txt \d/);
      expect(stderr.text).not.toContain('asked.txt');
      expect(stdout.text).toBe('All read\n');
    } finally {
      await session.cleanup();
    }
  });

  it('shows items with no hook registry at all: retries, narration, thinking, compaction, tool lines', async () => {
    const stdout = sink();
    const stderr = sink();
    const display = new Display({ stdout, stderr, env: {}, verbose: true });
    display.beginTurn();
    const answer = await display.show(
      items([
        { type: 'provider_request', provider: 'acme', iteration: 0 },
        { type: 'provider_retry', provider: 'acme', attempt: 1, max_retries: 3, delay: 1.25, cause: 'reset' },
        { type: 'provider_response', provider: 'acme', tool_calls: true },
        { type: 'content_block', block_type: 'thinking', text: 'Plan it\nstep two' },
        { type: 'content_block', block_type: 'text', text: 'Let me look.' },
        { type: 'tool_call', tool_call_id: 't1', tool_name: 'bash', tool_input: { command: 'ls -a' } },
        { type: 'tool_result', tool_call_id: 't1', tool_name: 'bash', result: { success: true } },
        { type: 'tool_call', tool_call_id: 't2', tool_name: 'grep', tool_input: { pattern: 'x' } },
        {
          type: 'tool_error',
          tool_call_id: 't2',
          tool_name: 'grep',
          error: { type: 'Error', msg: 'bad\nmore' },
        },
        { type: 'compaction', strategy_level: 4 },
        { type: 'provider_request', provider: 'acme', iteration: 1 },
        { type: 'text_delta', request_id: 'r2', block_index: 0, sequence: 0, text: 'Fin' },
        { type: 'text_delta', request_id: 'r2', block_index: 0, sequence: 1, text: 'ished' },
        { type: 'usage', provider: 'acme', model: 'm', usage: { input_tokens: 1, output_tokens: 1 } },
        { type: 'finish', text: 'Finished' },
      ]),
    );
    display.endTurn();
    display.answer(answer);
    expect(answer).toBe('Finished');
    const lines = stderr.text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '… waiting for acme',
        'retry 1/3 in 1.3 s: reset',
        'thinking: Plan it',
        'Let me look.',
        '  → bash ls -a',
        'context compacted (level 4)',
      ]),
    );
    expect(stderr.text).toMatch(/✓ bash ls -a \d/);
    expect(stderr.text).toMatch(/✗ grep x \d.* bad\n/);
    expect(display.streamedText).toBe('Finished');
    expect(stdout.text).toBe('Finished\n');
  });

  it('with --json, items print nothing but the streamed text is still followed', async () => {
    const stdout = sink();
    const stderr = sink();
    const display = new Display({ stdout, stderr, env: {}, json: true });
    await display.show(
      items([
        { type: 'provider_request', provider: 'acme' },
        { type: 'text_delta', request_id: 'r', block_index: 0, sequence: 0, text: 'Half' },
        { type: 'tool_call', tool_name: 'bash', tool_input: {} },
      ]),
    );
    expect(stdout.text).toBe('');
    expect(stderr.text).toBe('');
    expect(display.streamedText).toBe('Half');
  });
});
