/**
 * session.execute(prompt, { output }) over the real modules (loop-basic,
 * context-simple, provider-mock passed as module objects): the answer comes
 * through final_answer, an invalid one goes back to the model, and the model
 * may call other tools in the same turn.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as contextSimple from '@amplifier/context-simple';
import { AmplifierSession, defineTool } from '@amplifier/core';
import * as loopBasic from '@amplifier/loop-basic';
import * as providerMock from '@amplifier/provider-mock';

const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words of a text.',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
});

const output = {
  type: 'object',
  properties: { words: { type: 'integer' }, summary: { type: 'string' } },
  required: ['words', 'summary'],
  additionalProperties: false,
};

test('a typed answer through final_answer, after a tool call and one invalid answer', async () => {
  const script = [
    { tool_calls: [{ name: 'word_count', arguments: { text: 'one two three' } }] },
    { tool_calls: [{ name: 'final_answer', arguments: { words: 'three' } }] },
    { tool_calls: [{ name: 'final_answer', arguments: { words: 3, summary: 'three words' } }] },
    { text: 'Done.' },
  ];
  const session = await AmplifierSession.create(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'provider-mock', config: { script } }],
      tools: [{ module: 'word-count' }],
    },
    {
      modules: {
        'loop-basic': loopBasic,
        'context-simple': contextSimple,
        'provider-mock': providerMock,
        'word-count': wordCount,
      },
    },
  );
  try {
    const answer = await session.execute('How many words in "one two three"?', { output });
    assert.deepEqual(answer, { words: 3, summary: 'three words' });
    const tool = (await session.coordinator.get('context').getMessages()).filter((m) => m.role === 'tool');
    assert.equal(tool.length, 3);
    assert.match(String(tool[1].content), /invalid input for tool 'final_answer'/);
    assert.equal(session.coordinator.get('tools').has('final_answer'), false);
  } finally {
    await session.cleanup();
  }
});
