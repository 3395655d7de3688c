/**
 * A streaming provider and a small agent loop for the tests of
 * `streamTurn()`: the provider plays scripted responses and emits the
 * `llm:stream_*` events on `coordinator.hooks` as the streaming contract says
 * (one `request_id` per call, `block_start` / `block_delta` / `block_end`,
 * `stream_aborted` when the wire fails after a delta), then `llm:response`
 * with the usage; the loop calls it and runs tool calls with `tool:pre` /
 * `tool:post` / `tool:error`, like loop-basic.
 */
import {
  AmplifierSession,
  type ChatResponse,
  type ContentBlock,
  type Coordinator,
  dynamicEvent,
  type EventData,
  errorMessage,
  errorType,
  type MountFunction,
  type MountPlan,
  type OrchestratorRun,
  type Provider,
  responseText,
  type SessionOptions,
} from '@amplifier/core';
import { inProcessLoader, MockContextManager, RecordingLogger } from '@amplifier/testing';

export type Turn = (prompt: string, run: OrchestratorRun) => Promise<string>;

export type ScriptBlock =
  | { text: string[] }
  | { thinking: string[] }
  | { tool: { id: string; name: string; input: Record<string, unknown> } };

export interface ScriptedResponse {
  blocks: ScriptBlock[];
  usage?: { input_tokens: number; output_tokens: number };
  /** The wire fails with this error after `failAfter` deltas (default: never). */
  fail?: { after: number; error: Error };
  /** After `after` deltas the wire stops sending: the call hangs until its signal aborts. */
  hang?: { after: number };
}

/** A provider whose `complete()` streams scripted responses through the hooks. */
export class StreamingProvider implements Provider {
  readonly name = 'streamer';
  readonly responses: ScriptedResponse[];
  coordinator: Coordinator | undefined;
  calls = 0;
  constructor(responses: ScriptedResponse[]) {
    this.responses = responses;
  }
  getInfo() {
    return { id: 'streamer', display_name: 'streamer' };
  }
  async listModels() {
    return [];
  }
  parseToolCalls() {
    return [];
  }

  async complete(_request: unknown, options: { signal?: AbortSignal } = {}): Promise<ChatResponse> {
    const hooks = this.coordinator!.hooks;
    const script = this.responses[this.calls++] ?? { blocks: [{ text: ['(no more script)'] }] };
    const request_id = `req_${this.calls}`;
    const { signal } = options;
    const content: ContentBlock[] = [];
    let deltas = 0;
    const wire = async (): Promise<void> => {
      signal?.throwIfAborted();
      if (script.hang !== undefined && deltas === script.hang.after) {
        await new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      if (script.fail !== undefined && deltas === script.fail.after) {
        const { error } = script.fail;
        if (deltas > 0) {
          await hooks.emit('llm:stream_aborted', {
            request_id,
            error: { type: errorType(error), msg: errorMessage(error) },
          });
        }
        throw error;
      }
    };
    await hooks.emit('llm:request', { provider: this.name, model: 'scripted', message_count: 1 });
    for (const [block_index, block] of script.blocks.entries()) {
      if ('tool' in block) {
        await hooks.emit('llm:stream_block_start', {
          request_id,
          block_index,
          block_type: 'tool_use',
          name: block.tool.name,
        });
        await hooks.emit('llm:stream_block_end', { request_id, block_index, block_type: 'tool_use' });
        content.push({ type: 'tool_call', ...block.tool });
        continue;
      }
      const block_type = 'text' in block ? 'text' : 'thinking';
      const fragments = 'text' in block ? block.text : block.thinking;
      await hooks.emit('llm:stream_block_start', { request_id, block_index, block_type });
      for (const [sequence, text] of fragments.entries()) {
        await wire();
        await hooks.emit('llm:stream_block_delta', { request_id, block_index, block_type, sequence, text });
        deltas++;
      }
      await hooks.emit('llm:stream_block_end', { request_id, block_index, block_type });
      content.push(
        block_type === 'text'
          ? { type: 'text', text: fragments.join('') }
          : { type: 'thinking', thinking: fragments.join('') },
      );
    }
    await wire();
    await hooks.emit('llm:response', {
      provider: this.name,
      model: 'scripted',
      status: 'ok',
      duration_ms: 0,
      usage: script.usage ?? { input_tokens: 1, output_tokens: 1 },
    });
    return { content };
  }
}

/** A small agent loop over the first provider: model call, tool calls, again until the model answers. */
export const agentLoop: Turn = async (prompt: string, run: OrchestratorRun): Promise<string> => {
  await run.hooks.emit('prompt:submit', { prompt });
  const provider = [...run.providers.values()][0]!;
  for (;;) {
    let response: ChatResponse;
    try {
      response = await provider.complete({ messages: [] }, { ...(run.signal && { signal: run.signal }) });
    } catch (error) {
      await run.hooks.emit('provider:error', {
        provider: provider.name,
        error: { type: errorType(error), msg: errorMessage(error) },
      });
      throw error;
    }
    const calls = response.content.filter((b) => b.type === 'tool_call');
    if (calls.length === 0) {
      const text = responseText(response.content);
      await run.hooks.emit('prompt:complete', { prompt, response: text });
      return text;
    }
    for (const call of calls) {
      // Through the coordinator, as the reference loop does: ask_user becomes the approval's answer.
      const pre = await run.coordinator.emitAndProcess(
        'tool:pre',
        { tool_name: call.name, tool_input: call.input, tool_call_id: call.id },
        call.name,
      );
      if (pre.action === 'deny') continue;
      const input = (pre.data?.tool_input as Record<string, unknown> | undefined) ?? call.input;
      const tool = run.tools.get(call.name);
      if (tool === undefined) {
        await run.hooks.emit('tool:error', {
          tool_name: call.name,
          tool_call_id: call.id,
          error: { type: 'ToolNotFound', msg: `no tool '${call.name}'` },
        });
        continue;
      }
      const result = await tool.execute(input, { ...(run.signal && { signal: run.signal }) });
      await run.hooks.emit('tool:post', {
        tool_name: call.name,
        tool_input: input,
        tool_call_id: call.id,
        result,
      });
    }
  }
};

/** A session (in-process modules) whose provider streams `responses` and whose loop is `agentLoop`; a tool `echo`. */
export function streamingSession(responses: ScriptedResponse[], options: SessionOptions = {}) {
  const provider = new StreamingProvider(responses);
  const orchestrator = {
    turn: agentLoop,
    execute(prompt: string, run: OrchestratorRun): Promise<string> {
      return this.turn(prompt, run);
    },
  };
  const modules: Record<string, MountFunction> = {
    'loop-basic': (c) => {
      c.mount('orchestrator', orchestrator);
    },
    'context-simple': (c) => {
      c.mount('context', new MockContextManager());
    },
    'provider-streamer': (c) => {
      provider.coordinator = c;
      c.mount('providers', provider);
    },
    'tool-echo': (c) => {
      c.mount('tools', {
        name: 'echo',
        description: 'echo',
        execute: async (input: Record<string, unknown>) => ({ success: true, output: input }),
      });
    },
  };
  const plan: MountPlan = {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [{ module: 'provider-streamer' }],
    tools: [{ module: 'tool-echo' }],
  };
  const logger = new RecordingLogger();
  const session = new AmplifierSession(plan, { loader: inProcessLoader(modules), logger, ...options });
  return { session, provider, orchestrator, modules, logger };
}

/** Record every emit of `events` on the session's hooks, in order. */
export function record(session: AmplifierSession, ...events: string[]): [string, EventData][] {
  const seen: [string, EventData][] = [];
  for (const event of events) {
    session.coordinator.hooks.register(dynamicEvent(event), (e, data) => {
      seen.push([e, data]);
    });
  }
  return seen;
}
