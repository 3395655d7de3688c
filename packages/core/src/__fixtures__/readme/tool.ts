// #region readme
import { Coordinator, serializeToolOutput, type Tool } from '../../index.js';

const wordCount: Tool = {
  name: 'word_count', // snake_case, unique among mounted tools
  description: 'Counts the words in a text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  // No resource keys: never conflicts, so it may run concurrently with any other call.
  executionProfile: { resourceKeys: () => [] },
  async execute(input, { signal } = {}) {
    signal?.throwIfAborted();
    if (typeof input.text !== 'string') {
      // A tool never throws for a bad call: it tells the model what to fix.
      return { success: false, error: { message: 'text is required and must be a string' } };
    }
    return { success: true, output: { words: input.text.split(/\s+/).filter(Boolean).length } };
  },
};

const coordinator = new Coordinator();
coordinator.mount('tools', wordCount);

const result = await coordinator.get('tools', 'word_count')?.execute({ text: 'one two three' });
// result: { success: true, output: { words: 3 } }
const forTheModel = serializeToolOutput(result ?? { success: false }); // '{"words":3}'

const bad = await wordCount.execute({ text: 42 });

// bad: { success: false, error: { message: 'text is required and must be a string' } }
// #endregion

export { bad, forTheModel, result, wordCount };
