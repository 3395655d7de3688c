/**
 * The physical limit: a hand-written agent loop in plain TypeScript. It keeps
 * the history in an array, asks the (async, zero-latency) model, runs the
 * requested tools concurrently through a name -> tool map, appends results in
 * order and stops at the first answer without tool calls. No validation, no
 * hooks, no events: the least work an agent loop can do.
 */
import { type Adapter, ECHO_ARGS, FINAL_TEXT, PROMPT, type Script, TOOL_NAME } from './scenario.js';

interface Call {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
interface Message {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: Call[];
  tool_call_id?: string;
}
interface PlainTool {
  execute(input: Record<string, unknown>): Promise<string>;
}

/** The model: answers from the script (an async function, like any model client). */
async function complete(script: Script, _messages: readonly Message[]): Promise<Message> {
  const ids = script.next();
  if (ids === undefined) return { role: 'assistant', content: FINAL_TEXT };
  return {
    role: 'assistant',
    content: '',
    tool_calls: ids.map((id) => ({ id, name: TOOL_NAME, arguments: { ...ECHO_ARGS } })),
  };
}

async function runLoop(script: Script, tools: ReadonlyMap<string, PlainTool>): Promise<string> {
  const messages: Message[] = [{ role: 'user', content: PROMPT }];
  for (;;) {
    const reply = await complete(script, messages);
    messages.push(reply);
    const calls = reply.tool_calls;
    if (calls === undefined || calls.length === 0) return reply.content;
    const outputs = await Promise.all(
      calls.map((call) => {
        const tool = tools.get(call.name);
        return tool ? tool.execute(call.arguments) : Promise.resolve(`unknown tool ${call.name}`);
      }),
    );
    for (let i = 0; i < calls.length; i++) {
      messages.push({ role: 'tool', tool_call_id: calls[i]!.id, content: outputs[i]! });
    }
  }
}

/** The hand-written loop as an Adapter. */
export async function createAdapter(): Promise<Adapter> {
  return {
    name: 'plain',
    async prepare(script) {
      const tools = new Map<string, PlainTool>([
        [TOOL_NAME, { execute: async (input) => script.echo(String(input.text)) }],
      ]);
      return () => runLoop(script, tools);
    },
  };
}
