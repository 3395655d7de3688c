/**
 * LangChain 1 `createAgent` and LangGraph's prebuilt `createReactAgent`, as their
 * docs show: a zod-typed `tool`, `agent.invoke({ messages })` with a
 * `recursionLimit` raised to fit the conversation. The model subclasses
 * `BaseChatModel` (LangChain's documented way to write a custom chat model)
 * and supports `bindTools`, like the `FakeToolCallingModel` of LangChain's own
 * tests, without re-reading the history on every call.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  type Adapter,
  ECHO_ARGS,
  FINAL_TEXT,
  PROMPT,
  type Script,
  TOOL_DESCRIPTION,
  TOOL_NAME,
} from './scenario.js';

/** A zero-latency chat model answering from the script. */
export class ScriptedChatModel extends BaseChatModel {
  readonly script: Script;

  constructor(script: Script) {
    super({});
    this.script = script;
  }

  _llmType(): string {
    return 'scripted';
  }

  /** Tools are described to a real model; the script already knows what to call. */
  override bindTools(): ScriptedChatModel {
    return new ScriptedChatModel(this.script);
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const ids = this.script.next();
    const message =
      ids === undefined
        ? new AIMessage(FINAL_TEXT)
        : new AIMessage({
            content: '',
            tool_calls: ids.map((id) => ({ id, name: TOOL_NAME, args: { ...ECHO_ARGS }, type: 'tool_call' })),
          });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

function echoTool(script: Script) {
  return tool(async ({ text }: { text: string }) => script.echo(text), {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    schema: z.object({ text: z.string() }),
  });
}

function lastText(messages: readonly BaseMessage[]): string {
  const last = messages.at(-1);
  return typeof last?.content === 'string' ? last.content : '';
}

/** `createAgent` from `langchain`. */
export async function createAdapter(): Promise<Adapter> {
  return {
    name: 'langchain',
    async prepare(script) {
      const agent = createAgent({ model: new ScriptedChatModel(script), tools: [echoTool(script)] });
      const recursionLimit = 4 * script.steps + 10;
      return async () => {
        const state = await agent.invoke(
          { messages: [{ role: 'user', content: PROMPT }] },
          { recursionLimit },
        );
        return lastText(state.messages);
      };
    },
  };
}

/** `createReactAgent` from `@langchain/langgraph/prebuilt`. */
export async function createReactAdapter(): Promise<Adapter> {
  return {
    name: 'langgraph',
    async prepare(script) {
      const agent = createReactAgent({ llm: new ScriptedChatModel(script), tools: [echoTool(script)] });
      const recursionLimit = 4 * script.steps + 10;
      return async () => {
        const state = await agent.invoke(
          { messages: [{ role: 'user', content: PROMPT }] },
          { recursionLimit },
        );
        return lastText(state.messages);
      };
    },
  };
}
