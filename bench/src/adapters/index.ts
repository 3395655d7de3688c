/**
 * The systems of the headline comparison, in table order. Each is loaded on
 * demand, so a process imports only the frameworks it measures.
 */
import type { Adapter } from './scenario.js';

export interface System {
  id: string;
  label: string;
  load(): Promise<Adapter>;
}

export const SYSTEMS: readonly System[] = [
  {
    id: 'plain',
    label: 'plain hand-written loop (the physical limit)',
    load: async () => (await import('./plain.js')).createAdapter(),
  },
  {
    id: 'amplifier',
    label: 'Amplifier: loop-basic + context-simple via AmplifierSession',
    load: async () => (await import('./amplifier.js')).createAdapter(),
  },
  {
    id: 'amplifier-logging',
    label: 'Amplifier + hooks-logging (JSONL to a temp dir)',
    load: async () => (await import('./amplifier.js')).createAdapter({ logging: true }),
  },
  {
    id: 'amplifier-typed',
    label: 'Amplifier, the echo tool from `defineTool` + zod (a module object)',
    load: async () => (await import('./amplifier.js')).createAdapter({ typedTool: true }),
  },
  {
    id: 'ai-sdk',
    label: 'Vercel AI SDK 7 `generateText` + `stopWhen`',
    load: async () => (await import('./ai-sdk.js')).createAdapter(),
  },
  {
    id: 'openai-agents',
    label: 'OpenAI Agents SDK 0.20 `Runner.run` (tracing off)',
    load: async () => (await import('./openai-agents.js')).createAdapter(),
  },
  {
    id: 'langgraph',
    label: 'LangGraph 1 `createReactAgent`',
    load: async () => (await import('./langchain.js')).createReactAdapter(),
  },
  {
    id: 'langchain',
    label: 'LangChain 1 `createAgent`',
    load: async () => (await import('./langchain.js')).createAdapter(),
  },
];

export function systemById(id: string): System {
  const found = SYSTEMS.find((s) => s.id === id);
  if (found === undefined)
    throw new Error(`unknown system '${id}' (known: ${SYSTEMS.map((s) => s.id).join(', ')})`);
  return found;
}
