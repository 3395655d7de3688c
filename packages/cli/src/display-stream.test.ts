/** The display's handling of stream events, driven directly on a test coordinator's hooks. */
import { Writable } from 'node:stream';
import { createTestCoordinator } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { Display } from './display.js';

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

function setup() {
  const stdout = sink();
  const stderr = sink();
  const display = new Display({ stdout, stderr, env: {} });
  const coordinator = createTestCoordinator({ bare: true });
  display.attach(coordinator.hooks);
  const delta = (request_id: string, text: string, sequence: number) =>
    coordinator.hooks.emit('llm:stream_block_delta', {
      request_id,
      block_index: 0,
      block_type: 'text',
      sequence,
      text,
    });
  return { stdout, stderr, display, coordinator, delta };
}

describe('Display and stream events', () => {
  it('a retry names its count, the wait rounded to 0.1 s and the cause', async () => {
    const { stderr, display, coordinator } = setup();
    display.beginTurn();
    await coordinator.hooks.emit('provider:retry', {
      provider: 'openai',
      model: 'm',
      attempt: 2,
      max_retries: 5,
      delay: 0.8404852013585116,
      error_type: 'NetworkError',
      error_kind: 'network',
      status_code: null,
      error: 'openai: could not reach the server (connect ECONNREFUSED 127.0.0.1:9)',
      cause: 'connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(stderr.text).toContain('retry 2/5 in 0.8 s: connect ECONNREFUSED 127.0.0.1:9\n');
    display.endTurn();
  });

  it('a failed stream ends its line with a note; the answer after a retry is printed whole', async () => {
    const { stdout, stderr, display, coordinator, delta } = setup();
    display.beginTurn();
    await coordinator.hooks.emit('provider:request', { provider: 'mock', iteration: 1 });
    await delta('r1', 'Half an ans', 0);
    await coordinator.hooks.emit('llm:stream_aborted', {
      request_id: 'r1',
      error: { type: 'ProviderError', msg: 'connection reset' },
    });
    expect(stderr.text).toContain('(the answer stopped: connection reset)');
    display.endTurn();
    display.answer('The whole answer.');
    expect(stdout.text).toBe('Half an ans\nThe whole answer.\n');
  });

  it('a second stream within one provider call starts on its own line and is the answer', async () => {
    const { stdout, display, coordinator, delta } = setup();
    display.beginTurn();
    await coordinator.hooks.emit('provider:request', { provider: 'mock', iteration: 1 });
    await delta('r1', 'first try', 0);
    await delta('r2', 'Second ', 0);
    await delta('r2', 'try.', 1);
    display.endTurn();
    display.answer('Second try.');
    expect(stdout.text).toBe('first try\nSecond try.\n');
  });

  it('a cancelled stream keeps its text as the partial answer, without a note', async () => {
    const { stdout, stderr, display, coordinator, delta } = setup();
    display.beginTurn();
    await coordinator.hooks.emit('provider:request', { provider: 'mock', iteration: 1 });
    await delta('r1', 'Partial', 0);
    await coordinator.hooks.emit('llm:stream_aborted', {
      request_id: 'r1',
      error: { type: 'AbortError', msg: 'aborted' },
    });
    display.endTurn();
    expect(display.streamedText).toBe('Partial');
    expect(stdout.text).toBe('Partial\n');
    expect(stderr.text).not.toContain('stopped');
  });

  it('on a terminal a provider request starts the spinner (loaded on first use) and the answer stops it', async () => {
    const stdout = sink();
    const stderr = Object.assign(sink(), {
      columns: 80,
      // The cursor moves of a terminal stream, as no-ops.
      cursorTo: () => true,
      moveCursor: () => true,
      clearLine: () => true,
    });
    stderr.isTTY = true;
    const display = new Display({ stdout, stderr, env: { TERM: 'xterm' } });
    expect(display.interactive).toBe(true);
    const coordinator = createTestCoordinator({ bare: true });
    display.attach(coordinator.hooks);
    display.beginTurn();
    await coordinator.hooks.emit('provider:request', { provider: 'mock', iteration: 1 });
    expect(stderr.text).toContain('mock is thinking');
    display.error('stop');
    expect(stderr.text).toContain('Error: stop');
  });
});
