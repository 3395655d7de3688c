/**
 * The delegate tool in real sessions: a parent AmplifierSession whose spawn
 * capability starts real child sessions (loop-basic, context-simple,
 * provider-mock, and tool-bash where a real process is needed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SpawnRequest, Tool, ToolResult } from '@amplifier/core';
import { waitFor } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, type HarnessOptions, startParent } from './__fixtures__/sessions.js';
import { SUB_SESSION_ID } from './sub-session-id.js';
import { formatUsd } from './usage-ledger.js';

const AGENTS = {
  alpha: { meta: { description: 'Finds things.' } },
  beta: { description: 'Writes things.' },
  worker: { meta: { description: 'Runs commands.' } },
};

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: HarnessOptions): Promise<Harness> {
  harness = await startParent({ agents: AGENTS, ...options });
  return harness;
}

/** A child tool that resolves `mine` and waits for `theirs`: two calls can only finish together. */
function barrierTool(mine: () => void, theirs: Promise<void>): Tool {
  return {
    name: 'meet',
    description: 'Waits for the other agent.',
    inputSchema: { type: 'object' },
    async execute() {
      mine();
      await theirs;
      return { success: true, output: 'met' };
    },
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The tool results the parent's context holds, parsed. */
async function toolResults(h: Harness): Promise<unknown[]> {
  const context = h.parent.coordinator.get('context')!;
  return (await context.getMessages())
    .filter((m) => m.role === 'tool')
    .map((m) => {
      const text = String(m.content);
      // A successful result is the output as JSON; a failed one is its message.
      return text.startsWith('{') ? JSON.parse(text) : text;
    });
}

describe('delegation through session.spawn', () => {
  it('runs two delegations of one response concurrently (each child waits on the other)', async () => {
    const a = deferred();
    const b = deferred();
    const h = await start({
      script: [
        {
          tool_calls: [
            { id: 'call_a', name: 'delegate', arguments: { agent: 'alpha', instruction: 'find it' } },
            { id: 'call_b', name: 'delegate', arguments: { agent: 'beta', instruction: 'write it' } },
          ],
        },
        'both agents answered',
      ],
      child: (r: SpawnRequest) => ({
        script: [{ tool_calls: [{ name: 'meet', arguments: {} }] }, `answer of ${r.agent_name}`],
        tools: [
          r.agent_name === 'alpha' ? barrierTool(a.resolve, b.promise) : barrierTool(b.resolve, a.promise),
        ],
      }),
    });
    expect(await h.parent.execute('go')).toBe('both agents answered');
    expect(h.spawns.map((s) => s.agent_name)).toEqual(['alpha', 'beta']);
    const results = (await toolResults(h)) as { response: string; session_id: string; agent: string }[];
    expect(results.map((r) => r.response)).toEqual(['answer of alpha', 'answer of beta']);
    for (const result of results) expect(result.session_id).toMatch(SUB_SESSION_ID);
    expect(results[0]).toMatchObject({ agent: 'alpha', status: 'success', turn_count: 1 });
  });

  it('passes the request fields of the reference and reports the child and its usage up', async () => {
    const h = await start({
      script: ['unused'],
      config: {
        settings: { exclude_tools: ['tool-delegate', 'tool-bash'], exclude_hooks: ['hooks-logging'] },
      },
    });
    const result = await h.delegate.execute(
      { agent: 'alpha', instruction: 'look around' },
      { toolCallId: 'call_1' },
    );
    expect(result.success).toBe(true);
    const output = result.output as Record<string, unknown>;
    expect(output).toMatchObject({
      response: 'done by alpha',
      agent: 'alpha',
      status: 'success',
      turn_count: 1,
    });
    const usage = output.usage as { input_tokens: number; output_tokens: number; cost_usd: number };
    expect(usage.input_tokens).toBeGreaterThan(0);
    const [request] = h.spawns;
    expect(request).toMatchObject({
      agent_name: 'alpha',
      instruction: 'look around',
      parent_session_id: h.parent.sessionId,
      sub_session_id: output.session_id,
      tool_inheritance: { exclude: ['tool-delegate', 'tool-bash'] },
      hook_inheritance: { exclude: ['hooks-logging'] },
      self_delegation_depth: 0,
      session_metadata: { agent_name: 'alpha', tool_call_id: 'call_1' },
    });
    expect(request!.signal).toBeInstanceOf(AbortSignal);
    expect(h.children.get(output.session_id as string)?.parentId).toBe(h.parent.sessionId);

    const spawned = h.events.getEvents('delegate:agent_spawned');
    expect(spawned[0]![1]).toMatchObject({
      agent: 'alpha',
      sub_session_id: output.session_id,
      parent_session_id: h.parent.sessionId,
      context_depth: 'recent',
      context_scope: 'conversation',
      tool_call_id: 'call_1',
    });
    const completed = h.events.getEvents('delegate:agent_completed');
    expect(completed[0]![1]).toMatchObject({ success: true, usage, turn_count: 1 });
    // The child's cost joins the parent's session.cost contributions under delegate:<id>.
    const costs = await h.parent.coordinator.collectContributions('session.cost');
    expect(costs).toContainEqual({
      provider: `delegate:${output.session_id}`,
      cost_usd: String(usage.cost_usd),
    });
  });

  it('provider preferences: explicit, else the model role, else the agent (first present wins)', async () => {
    const h = await start({
      script: ['unused'],
      agents: { ...AGENTS, alpha: { description: 'x', provider_preferences: [{ provider: 'anthropic' }] } },
    });
    const resolver = Object.assign((role: string) => [{ provider: 'openai', model: `${role}-*` }], {
      known_roles: ['fast', 'smart'],
    });
    h.parent.coordinator.registerCapability('model_role_resolver', resolver);
    expect(h.delegate.inputSchema).toMatchObject({ properties: { model_role: { enum: ['fast', 'smart'] } } });
    await h.delegate.execute({
      agent: 'alpha',
      instruction: 'a',
      provider_preferences: [{ provider: 'mock' }],
    });
    await h.delegate.execute({ agent: 'alpha', instruction: 'b', model_role: 'fast' });
    await h.delegate.execute({ agent: 'alpha', instruction: 'c' });
    expect(h.spawns.map((s) => s.provider_preferences)).toEqual([
      [{ provider: 'mock' }],
      [{ provider: 'openai', model: 'fast-*' }],
      [{ provider: 'anthropic' }],
    ]);
  });

  it('prepends the inherited parent context with the reference markers', async () => {
    const h = await start({
      script: [
        'I will ask an agent.',
        {
          tool_calls: [
            { id: 'c1', name: 'delegate', arguments: { agent: 'alpha', instruction: 'dig deeper' } },
          ],
        },
        'done',
      ],
    });
    await h.parent.execute('first question');
    await h.parent.execute('second question');
    const instruction = h.spawns[0]!.instruction;
    expect(instruction).toMatch(/^\[PARENT CONVERSATION CONTEXT\]\n/);
    expect(instruction).toContain('USER: first question');
    expect(instruction).toContain('ASSISTANT: I will ask an agent.');
    expect(instruction).toContain('USER: second question');
    expect(instruction.endsWith('[END PARENT CONTEXT]\n\n[YOUR TASK]\ndig deeper')).toBe(true);

    await h.delegate.execute({ agent: 'alpha', instruction: 'fresh', context_depth: 'none' });
    expect(h.spawns[1]!.instruction).toBe('fresh');
    await h.delegate.execute({ agent: 'alpha', instruction: 'one turn', context_turns: 1 });
    expect(h.spawns[2]!.instruction).not.toContain('first question');
    expect(h.spawns[2]!.instruction).toContain('USER: second question');
  });

  it('continues a child by session_id through session.resume', async () => {
    const h = await start({
      script: ['unused'],
      child: () => ({ script: ['first answer', 'second answer'] }),
    });
    const first = await h.delegate.execute({ agent: 'alpha', instruction: 'start' });
    const id = (first.output as { session_id: string }).session_id;
    const second = await h.delegate.execute({ session_id: id, instruction: 'and then?', agent: 'ignored' });
    expect(second).toMatchObject({
      success: true,
      output: { response: 'second answer', session_id: id, agent: 'alpha', turn_count: 2 },
    });
    expect(h.resumes).toEqual([expect.objectContaining({ session_id: id, instruction: 'and then?' })]);
    expect(h.spawns).toHaveLength(1);
    expect(h.events.names()).toContain('delegate:agent_resumed');
    // Both runs' cost sit in the child's one session.cost entry.
    const costOf = (r: ToolResult): number => (r.output as { usage: { cost_usd: number } }).usage.cost_usd;
    expect(await h.parent.coordinator.collectContributions('session.cost')).toEqual([
      { provider: `delegate:${id}`, cost_usd: formatUsd(costOf(first) + costOf(second)) },
    ]);
    // The child saw both turns (a resumed session keeps its conversation).
    const messages = await h.children.get(id)!.coordinator.get('context')!.getMessages();
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['start', 'and then?']);

    const missing = await h.delegate.execute({
      session_id: '0000000000000000-1111111111111111_x',
      instruction: 'hi',
    });
    expect(missing).toEqual({
      success: false,
      error: {
        message:
          "Agent session '0000000000000000-1111111111111111_x' not found. May have expired or never existed.",
        code: 'SESSION_NOT_FOUND',
      },
    });
  });

  it("a child's provider failure is a failed result and the parent goes on", async () => {
    const h = await start({
      script: [
        { tool_calls: [{ id: 'c1', name: 'delegate', arguments: { agent: 'alpha', instruction: 'try' } }] },
        'the agent failed, so I did it myself',
      ],
      child: () => ({ script: [{ error: { kind: 'authentication', message: 'bad key' } }] }),
    });
    expect(await h.parent.execute('go')).toBe('the agent failed, so I did it myself');
    const [result] = (await toolResults(h)) as string[];
    expect(result).toMatch(/^Agent delegation failed \(CHILD_FAILED\): .*bad key/);
    expect(h.events.names()).toContain('delegate:error');
    expect(h.events.names()).not.toContain('delegate:agent_completed');
  });

  it('a spawn capability that throws is a failed result naming the error', async () => {
    const h = await start({ script: ['unused'] });
    h.parent.coordinator.registerCapability('session.spawn', async () => {
      throw new TypeError('no such bundle');
    });
    const result = await h.delegate.execute({ agent: 'alpha', instruction: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.message).toMatch(/^Agent delegation failed \(TypeError\): no such bundle/);
    h.parent.coordinator.registerCapability('session.spawn', async () => 'not a result');
    const odd = await h.delegate.execute({ agent: 'alpha', instruction: 'x' });
    expect(odd.error?.message).toMatch(/^Agent delegation failed \(InvalidResult\)/);
  });

  it('settings.timeout stops the child and fails with delegate:error', async () => {
    const h = await start({
      script: ['unused'],
      config: { settings: { timeout: 0.2 } },
      child: () => ({
        script: [{ tool_calls: [{ name: 'hang', arguments: {} }] }, 'never'],
        tools: [
          {
            name: 'hang',
            description: 'Waits until stopped.',
            inputSchema: { type: 'object' },
            execute: (_input, { signal } = {}) =>
              new Promise<ToolResult>((resolve) =>
                signal?.addEventListener('abort', () =>
                  resolve({ success: false, error: { message: 'stopped' } }),
                ),
              ),
          },
        ],
      }),
    });
    const result = await h.delegate.execute({ agent: 'alpha', instruction: 'wait' });
    expect(result).toMatchObject({ success: false, error: { type: 'timeout' } });
    expect(result.error?.message).toMatch(/^Agent delegation failed \(TimeoutError\)/);
    const [[, error]] = h.events.getEvents('delegate:error') as [[string, { error: string }]];
    expect(error.error).toBe(result.error?.message);
    // The child's turn was cancelled through its signal.
    await Promise.all(h.turns);
    expect([...h.children.values()][0]!.status.status).toBe('cancelled');
  });
});

describe('cancellation', () => {
  it("cancelling the parent stops the child's running process and ends the call as cancelled", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-delegate-cancel-'));
    const pidFile = path.join(dir, 'pid');
    try {
      const h = await start({
        script: [
          {
            tool_calls: [
              { id: 'c1', name: 'delegate', arguments: { agent: 'worker', instruction: 'run it' } },
            ],
          },
          'unreachable',
        ],
        child: () => ({
          bash: true,
          script: [
            { tool_calls: [{ name: 'bash', arguments: { command: `echo $$ > ${pidFile}; sleep 60` } }] },
            'x',
          ],
        }),
      });
      const controller = new AbortController();
      const turn = h.parent.execute('go', { signal: controller.signal }).catch((e: unknown) => e);
      expect(
        await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', {
          timeoutMs: 20_000,
        }),
      ).toBe(true);
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      expect(() => process.kill(pid, 0)).not.toThrow();
      controller.abort();
      await turn;
      await Promise.all(h.turns);
      expect(await waitFor(() => !alive(pid), { timeoutMs: 10_000 })).toBe(true);
      expect(h.parent.status.status).toBe('cancelled');
      expect([...h.children.values()][0]!.status.status).toBe('cancelled');
      expect(h.spawns[0]!.signal?.aborted).toBe(true);
      expect(h.events.names()).toContain('delegate:agent_cancelled');
      expect(h.events.names()).not.toContain('delegate:agent_completed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a call whose signal is already aborted starts no child', async () => {
    const h = await start({ script: ['unused'] });
    const result = await h.delegate.execute(
      { agent: 'alpha', instruction: 'x' },
      { signal: AbortSignal.abort() },
    );
    expect(result).toMatchObject({ success: false, error: { type: 'cancelled' } });
    expect(h.spawns).toHaveLength(0);
    expect(h.events.names()).toEqual(['delegate:agent_spawned', 'delegate:agent_cancelled']);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('limits', () => {
  it('limits.max_depth bounds the nesting (children mount the tool too)', async () => {
    const config = { limits: { max_depth: 2 } };
    const nested = {
      tool_calls: [{ name: 'delegate', arguments: { agent: 'alpha', instruction: 'go deeper' } }],
    };
    const h = await start({
      script: [
        { tool_calls: [{ id: 'c1', name: 'delegate', arguments: { agent: 'alpha', instruction: 'go' } }] },
        'top',
      ],
      config,
      child: () => ({ script: [nested, 'level answer'], delegate: config }),
    });
    expect(await h.parent.execute('go')).toBe('top');
    // root -> depth 1 -> depth 2; the depth-2 child was refused.
    expect(h.spawns).toHaveLength(2);
    const deepest = [...h.children.values()][1]!;
    const messages = await deepest.coordinator.get('context')!.getMessages();
    const refusal = messages.find((m) => m.role === 'tool')!;
    expect(String(refusal.content)).toContain(
      'Delegation depth limit reached: this session is at nesting depth 2',
    );
  });

  it('limits.max_children bounds the children one session starts', async () => {
    const h = await start({
      script: ['unused'],
      config: { limits: { max_children: 2 } },
      child: () => ({ script: ['first', 'second'] }),
    });
    const first = await h.delegate.execute({ agent: 'alpha', instruction: '1' });
    await h.delegate.execute({ agent: 'alpha', instruction: '2' });
    const third = await h.delegate.execute({ agent: 'alpha', instruction: '3' });
    expect(third).toMatchObject({ success: false, error: { code: 'CHILDREN_LIMIT_EXCEEDED' } });
    expect(third.error?.message).toContain('limits.max_children is 2');
    expect(h.spawns).toHaveLength(2);
    // Resuming an existing child is still allowed.
    const id = (first.output as { session_id: string }).session_id;
    expect((await h.delegate.execute({ session_id: id, instruction: 'more' })).success).toBe(true);
  });

  it("self-delegation stops at features.self_delegation.max_depth with the reference's code", async () => {
    const h = await start({
      script: ['unused'],
      config: { features: { self_delegation: { max_depth: 1 } } },
    });
    const first = await h.delegate.execute({ agent: 'self', instruction: 'as me' });
    expect(first.success).toBe(true);
    expect(h.spawns[0]!.self_delegation_depth).toBe(1);
    h.parent.coordinator.registerCapability('self_delegation_depth', 1);
    const refused = await h.delegate.execute({ agent: 'self', instruction: 'again' });
    expect(refused).toMatchObject({ success: false, error: { code: 'SELF_DELEGATION_DEPTH_EXCEEDED' } });
  });
});

describe('input and capability errors (reference texts)', () => {
  it('answers the B3 messages', async () => {
    const h = await start({ script: ['unused'], spawn: false, resume: false });
    const call = (input: Record<string, unknown>): Promise<string | undefined> =>
      h.delegate.execute(input).then((r) => r.error?.message);
    expect(await call({ agent: 'alpha', instruction: '  ' })).toBe('Instruction cannot be empty');
    expect(await call({ instruction: 'x' })).toBe(
      'Agent name required for new delegation (or provide session_id to resume)',
    );
    expect(await call({ agent: 'gamma', instruction: 'x' })).toBe(
      "Agent 'gamma' not found. Available: ['alpha', 'beta', 'worker']",
    );
    expect(await call({ agent: 'alpha', instruction: 'x' })).toBe(
      "Session spawning not available. App layer must register 'session.spawn' capability.",
    );
    // Names with a namespace are left to the spawner.
    expect(await call({ agent: 'foundation:explorer', instruction: 'x' })).toBe(
      "Session spawning not available. App layer must register 'session.spawn' capability.",
    );
    expect(await call({ session_id: 'abc', instruction: 'x' })).toBe(
      "Session resumption not available. App layer must register 'session.resume' capability.",
    );
  });

  it('resumption can be turned off', async () => {
    const h = await start({
      script: ['unused'],
      config: { features: { session_resume: { enabled: false } } },
    });
    expect((await h.delegate.execute({ session_id: 'abc', instruction: 'x' })).error?.message).toBe(
      'Session resumption is disabled',
    );
  });

  it('the description ends with the roster, sorted by name', async () => {
    const h = await start({ script: ['unused'] });
    expect(h.delegate.description).toMatch(
      /\n\nAvailable agents:\n- alpha: Finds things\.\n- beta: Writes things\.\n- worker: Runs commands\.$/,
    );
    expect(h.delegate.inputSchema).toMatchObject({ required: ['instruction'] });
    expect(h.delegate.executionProfile?.resourceKeys?.({})).toEqual([]);
    // It declares that its calls run sub-sessions, named by the agent (orchestrators read this, not the name).
    expect(h.delegate.subSessions?.sessionName({ agent: 'alpha', instruction: 'x' })).toBe('alpha');
    for (const agent of [undefined, '', 7, { name: 'alpha' }]) {
      expect(h.delegate.subSessions?.sessionName({ agent, instruction: 'x' })).toBeUndefined();
    }
    expect(
      h.delegate.subSessions?.sessionName(JSON.parse('{"__proto__": {"agent": "evil"}}')),
    ).toBeUndefined();
    expect(await h.parent.coordinator.collectContributions('observability.events')).toContainEqual([
      'delegate:agent_spawned',
      'delegate:agent_completed',
      'delegate:agent_resumed',
      'delegate:agent_cancelled',
      'delegate:error',
    ]);
  });
});
