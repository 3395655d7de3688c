// streamTurn() over the real modules: provider-mock streams its answer in fragments
// (Amplifier's streaming contract), loop-basic runs the turn, context-simple keeps it.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AmplifierSession } from '@amplifier/core';
import { streamTurn } from '@amplifier/server';

const appDir = dirname(dirname(fileURLToPath(import.meta.url)));
const plan = {
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [{ module: 'provider-mock', config: { stream_chunk_chars: 4 } }],
};

test('streamTurn yields the text deltas of the answer, then finish', async () => {
  const session = await AmplifierSession.create(plan, { baseDir: appDir });
  const events = [];
  try {
    for await (const event of streamTurn(session, 'hi')) events.push(event);
  } finally {
    await session.cleanup();
  }
  const deltas = events.filter((e) => e.type === 'text_delta');
  const finish = events.at(-1);
  assert.equal(finish.type, 'finish');
  assert.ok(deltas.length > 3, `expected several fragments, got ${deltas.length}`);
  assert.equal(deltas.map((d) => d.text).join(''), finish.text);
  assert.deepEqual(
    deltas.map((d) => d.sequence),
    deltas.map((_, i) => i),
  );
  assert.equal(new Set(deltas.map((d) => d.request_id)).size, 1);
  assert.ok(events.some((e) => e.type === 'usage'));
});

test('leaving the loop mid-stream cancels the turn; the session runs the next one', async () => {
  const session = await AmplifierSession.create(plan, { baseDir: appDir });
  try {
    let seen = 0;
    for await (const event of streamTurn(session, 'first')) {
      if (event.type === 'text_delta' && ++seen === 2) break;
    }
    assert.equal(seen, 2);
    const answer = await session.execute('second');
    assert.equal(typeof answer, 'string');
    assert.ok(answer.length > 0);
  } finally {
    await session.cleanup();
  }
});
