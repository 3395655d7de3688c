// #region readme
import { AmplifierSession, defineTool, type MountPlan } from '../../index.js';
import * as contextSimple from './modules/context-simple.js';
import * as loopBasic from './modules/loop-basic.js';
import * as providerMock from './modules/provider-mock.js';

const shout = defineTool({
  name: 'shout',
  description: 'Upper-cases a text.',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => text.toUpperCase(), // text: string, from the JSON Schema
});

/** A session from imported modules: nothing is looked for on disk, so the app bundles. */
export async function composed(prompt: string): Promise<string> {
  const plan: MountPlan = {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [{ module: 'provider-mock' }],
    tools: [{ module: 'shout' }],
  };
  await using session = await AmplifierSession.create(plan, {
    modules: {
      'loop-basic': loopBasic,
      'context-simple': contextSimple,
      'provider-mock': providerMock,
      shout,
    },
  });
  return await session.execute(prompt);
}
// #endregion
