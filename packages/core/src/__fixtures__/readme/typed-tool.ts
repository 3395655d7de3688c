// #region readme
import { z } from 'zod';
import { defineTool } from '../../index.js';

export const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words in a text.',
  input: z.object({ text: z.string().min(1), max: z.number().int().positive().default(1000) }),
  executionProfile: { resourceKeys: () => [] },
  // `text` is a string and `max` a number (typed from the schema); the input was validated first.
  execute: ({ text, max }) => ({ words: Math.min(max, text.split(/\s+/).filter(Boolean).length) }),
});

wordCount.inputSchema; // zod's JSON Schema: { type: 'object', properties: { text: ..., max: ... }, required: ['text'] }

export const result = await wordCount.execute({ text: 'one two three' });
// result: { success: true, output: { words: 3 } }

export const bad = await wordCount.execute({ text: '' });
// bad: { success: false, error: { type: 'ValidationError',
//   message: "invalid input for tool 'word_count': text: Too small: ... The tool was not run; fix the arguments and call it again." } }
// #endregion
