#!/usr/bin/env node
/**
 * The basic app composed in code: the modules come from `import` statements
 * (passed as `modules`, by the ids the plan names), and one tool is written
 * with `defineTool`. No module is looked for on disk, so this file bundles
 * into one (rolldown, esbuild) and runs where there is no node_modules.
 *
 *   node in-code.mjs [--prompt "..."]
 *
 * Prints the tool result and the answer of one scripted turn.
 */
import { parseArgs } from 'node:util';
import * as contextSimple from '@amplifier/context-simple';
import { AmplifierSession, defineTool } from '@amplifier/core';
import * as loopBasic from '@amplifier/loop-basic';
import * as providerMock from '@amplifier/provider-mock';

const { values } = parseArgs({ options: { prompt: { type: 'string', default: 'How many words?' } } });

// `input` is a JSON Schema here (typed with FromSchema in TypeScript); a zod or valibot schema works too.
const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words of a text.',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
});

const plan = {
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [
    {
      module: 'provider-mock',
      config: {
        script: [
          {
            tool_calls: [
              { name: 'word_count', arguments: { text: 'composed in code, bundled in one file' } },
            ],
          },
          { text: 'Seven words.' },
        ],
      },
    },
  ],
  tools: [{ module: 'word-count' }],
};

const modules = {
  'loop-basic': loopBasic,
  'context-simple': contextSimple,
  'provider-mock': providerMock,
  'word-count': wordCount,
};

const session = await AmplifierSession.create(plan, { modules });
try {
  session.coordinator.hooks.register('tool:post', (_event, data) => {
    console.log(`tool ${data.tool_name}: ${JSON.stringify(data.result.output)}`);
  });
  console.log(`answer: ${await session.execute(values.prompt)}`);
} finally {
  await session.cleanup();
}
