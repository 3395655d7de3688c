/**
 * createSpawner with real sessions (loop-basic, a list context, provider-mock
 * loaded by core's loader from this package's dev dependencies): a child runs
 * the agent's instruction, reports usage, fails as a result, resumes by id,
 * stops at the depth limit and stops when cancelled.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AmplifierSession,
  type ChatRequest,
  type Coordinator,
  DELEGATION_DEPTH_CAPABILITY,
  type MountPlan,
  RESUME_CAPABILITY,
  SELF_DELEGATION_DEPTH_CAPABILITY,
  SPAWN_CAPABILITY,
  type SpawnRequest,
  SUB_SESSION_BUDGET_CAPABILITY,
} from '@amplifier/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentConfig } from './agents.js';
import { type ChildInfo, createSpawner, memoryChildStore, type StoredChild } from './spawn.js';

const baseDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** A list-backed context module (context-simple depends on this kit, so its tests cannot load it). */
const CONTEXT_LIST = path.join(baseDir, 'src', '__fixtures__', 'context-list');
const sessions: AmplifierSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.cleanup();
});

function textOf(request: ChatRequest): string[] {
  return request.messages.map(
    (m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
  );
}

async function parentWith(
  agents: Record<string, AgentConfig>,
  extra: Partial<MountPlan> = {},
): Promise<Coordinator> {
  const plan = {
    session: { orchestrator: 'loop-basic', context: { module: 'context-list', source: CONTEXT_LIST } },
    providers: [{ module: 'provider-mock' }],
    agents,
    ...extra,
  } as MountPlan;
  const session = new AmplifierSession(plan, { baseDir, workingDir: baseDir });
  sessions.push(session);
  await session.initialize();
  return session.coordinator;
}

function agent(
  name: string,
  providerConfig: Record<string, unknown>,
  more: Partial<AgentConfig> = {},
): AgentConfig {
  return {
    name,
    description: `the ${name} agent`,
    meta: { name },
    instruction: `You are ${name}.`,
    providers: [{ module: 'provider-mock', config: providerConfig }],
    ...more,
  };
}

function request(agentName: string, instruction: string, more: Partial<SpawnRequest> = {}): SpawnRequest {
  return {
    agent_name: agentName,
    instruction,
    sub_session_id: `0000000000000000-${Math.random().toString(16).slice(2, 18).padEnd(16, '0')}_${agentName}`,
    parent_session_id: 'parent',
    self_delegation_depth: 0,
    ...more,
  };
}

describe('createSpawner', () => {
  it('runs a child with the agent instruction as its system prompt and reports usage and depth', async () => {
    const seen: string[][] = [];
    const parent = await parentWith({
      helper: agent('helper', {
        respond: (req: ChatRequest) => {
          seen.push(textOf(req));
          return {
            content: [{ type: 'text', text: 'child done' }],
            usage: { input_tokens: 11, output_tokens: 4, total_tokens: 15 },
          };
        },
      }),
    });
    const forks: unknown[] = [];
    const infos: { depth: number; self: unknown; delegation: unknown; spawn: boolean; resume: boolean }[] =
      [];
    const spawner = createSpawner({
      onChild: (info: ChildInfo) => {
        info.session.coordinator.hooks.register('session:fork', (_e, data) => {
          forks.push(data);
        });
        const c = info.session.coordinator;
        infos.push({
          depth: info.depth,
          self: c.getCapability(SELF_DELEGATION_DEPTH_CAPABILITY),
          delegation: c.getCapability(DELEGATION_DEPTH_CAPABILITY),
          spawn: typeof c.getCapability(SPAWN_CAPABILITY) === 'function',
          resume: typeof c.getCapability(RESUME_CAPABILITY) === 'function',
        });
      },
    });
    spawner.register(parent);
    const spawn = parent.getCapability<(r: SpawnRequest) => Promise<unknown>>(SPAWN_CAPABILITY);
    const result = (await spawn?.(request('helper', 'Do the thing', { self_delegation_depth: 2 }))) as Record<
      string,
      unknown
    >;
    expect(result).toMatchObject({
      output: 'child done',
      status: 'success',
      turn_count: 1,
      usage: { input_tokens: 11, output_tokens: 4 },
      metadata: { agent_name: 'helper', delegation_depth: 1 },
    });
    expect(seen[0]).toEqual(['system: You are helper.', 'user: Do the thing']);
    expect(forks).toEqual([
      expect.objectContaining({
        parent: parent.sessionId,
        metadata: expect.objectContaining({ agent_name: 'helper' }),
      }),
    ]);
    expect(infos).toEqual([{ depth: 1, self: 2, delegation: 1, spawn: true, resume: true }]);
  });

  it("a child whose provider fails is a result with status 'error', not an exception", async () => {
    const parent = await parentWith({
      broken: agent('broken', { script: [{ error: { kind: 'authentication', message: 'bad key' } }] }),
    });
    const result = await createSpawner().spawn(parent, request('broken', 'Try'));
    expect(result.status).toBe('error');
    expect(result.error?.message).toMatch(/bad key/);
  });

  it('an unknown agent, and a plan the child cannot run, are errors naming what to do', async () => {
    const parent = await parentWith({
      odd: agent('odd', {}, { tools: [{ module: 'tool-does-not-exist' }] }),
    });
    const spawner = createSpawner();
    const unknown = await spawner.spawn(parent, request('nobody', 'x'));
    expect(unknown).toMatchObject({ status: 'error', error: { code: 'AGENT_NOT_FOUND' } });
    expect(unknown.error?.message).toMatch(/Available: odd/);
    const odd = await spawner.spawn(parent, request('odd', 'x'));
    // A tool that does not load is skipped (and reported), the agent still answers.
    expect(odd.status).toBe('success');
    expect(odd.metadata?.skipped_modules).toEqual(['tool-does-not-exist']);
  });

  it('resumes a stored child by id: same id, history replayed, turn count grows', async () => {
    const seen: string[][] = [];
    const parent = await parentWith({
      helper: agent('helper', {
        respond: (req: ChatRequest, { call }: { call: number }) => {
          seen.push(textOf(req));
          return { content: [{ type: 'text', text: `answer ${call}` }] };
        },
      }),
    });
    const saved: StoredChild[] = [];
    const memory = memoryChildStore();
    const spawner = createSpawner({
      store: {
        save: (c) => {
          saved.push(c);
          return memory.save(c);
        },
        load: (id) => memory.load(id),
      },
    });
    const first = await spawner.spawn(parent, request('helper', 'first task'));
    const second = await spawner.resume(parent, {
      session_id: first.session_id,
      instruction: 'second task',
      parent_session_id: parent.sessionId,
    });
    expect(second).toMatchObject({ session_id: first.session_id, status: 'success', turn_count: 2 });
    expect(seen[1]?.length).toBe(4);
    expect(seen[1]?.[0]).toBe('system: You are helper.');
    expect(seen[1]?.[1]).toBe('user: first task');
    expect(seen[1]?.[3]).toBe('user: second task');
    expect(seen[1]?.[2]).toMatch(/answer/);
    expect(saved.map((s) => [s.agent_name, s.parent_id, s.turn_count])).toEqual([
      ['helper', parent.sessionId, 1],
      ['helper', parent.sessionId, 2],
    ]);
    const missing = await spawner.resume(parent, {
      session_id: 'nope',
      instruction: 'x',
      parent_session_id: 'p',
    });
    expect(missing.error?.message).toBe("Agent session 'nope' not found. May have expired or never existed.");
  });

  it('refuses to nest deeper than maxDepth', async () => {
    const parent = await parentWith({ helper: agent('helper', {}) });
    parent.registerCapability(DELEGATION_DEPTH_CAPABILITY, 2);
    const result = await createSpawner({ maxDepth: 2 }).spawn(parent, request('helper', 'x'));
    expect(result).toMatchObject({ status: 'error', error: { code: 'DELEGATION_DEPTH_EXCEEDED' } });
  });

  it("cancelling (the request's signal or the parent's token) stops the child", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const parent = await parentWith({
      slow: agent('slow', {
        respond: (_req: ChatRequest, { signal }: { signal?: AbortSignal }) =>
          new Promise((_resolve, reject) => {
            started();
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
      }),
    });
    const spawner = createSpawner();
    const controller = new AbortController();
    const pending = spawner.spawn(parent, request('slow', 'wait', { signal: controller.signal }));
    await running;
    controller.abort();
    expect((await pending).status).toBe('cancelled');
    // The parent's immediate cancel reaches a running child as well.
    let again!: () => void;
    const runningAgain = new Promise<void>((resolve) => {
      again = resolve;
    });
    started = again;
    const second = spawner.spawn(parent, request('slow', 'wait'));
    await runningAgain;
    await parent.requestCancel({ immediate: true });
    expect((await second).status).toBe('cancelled');
    expect((await spawner.spawn(parent, request('slow', 'late'))).status).toBe('cancelled');
  });
});

describe('the sub-session budget of a turn', () => {
  const helper = () => agent('helper', { respond: () => ({ content: [{ type: 'text', text: 'ok' }] }) });

  it('parallel spawns past the budget: exactly the budget start, the others fail with the reason', async () => {
    const parent = await parentWith({ helper: helper() });
    const spawner = createSpawner({ maxSubSessions: 4 });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => spawner.spawn(parent, request('helper', `task ${i}`))),
    );
    expect(results.filter((r) => r.status === 'success')).toHaveLength(4);
    const refused = results.filter((r) => r.status === 'error');
    expect(refused).toHaveLength(6);
    for (const r of refused) {
      expect(r.error?.code).toBe('SUB_SESSION_BUDGET_EXCEEDED');
      expect(r.error?.message).toMatch(/^The sub-session budget of 4 for this turn is used up/);
    }
  });

  it('the whole tree shares it: a child counts against its root, and a new top-level turn starts again at 0', async () => {
    const parent = await parentWith({ helper: helper() });
    const children: Coordinator[] = [];
    const spawner = createSpawner({
      maxSubSessions: 3,
      onChild: (info) => void children.push(info.session.coordinator),
    });
    expect((await spawner.spawn(parent, request('helper', 'a'))).status).toBe('success');
    // A grandchild, spawned from the child: same budget object.
    const child = children[0]!;
    expect(child.getCapability(SUB_SESSION_BUDGET_CAPABILITY)).toBe(
      parent.getCapability(SUB_SESSION_BUDGET_CAPABILITY),
    );
    expect((await spawner.spawn(child, request('helper', 'b'))).status).toBe('success');
    const resumed = await spawner.resume(parent, {
      session_id: (await spawner.spawn(parent, request('helper', 'c'))).session_id,
      instruction: 'again',
      parent_session_id: parent.sessionId,
    });
    // Two spawns and a grandchild used 3: the resume is a fourth sub-session.
    expect(resumed.error?.code).toBe('SUB_SESSION_BUDGET_EXCEEDED');
    await parent.hooks.emit('prompt:submit', { prompt: 'next turn' });
    expect((await spawner.spawn(parent, request('helper', 'd'))).status).toBe('success');
  });

  it("the lowest cap wins: the spawner's (default 32), the bundle's spawn.max_sub_sessions, the caller's", async () => {
    const parent = await parentWith({ helper: helper() });
    const used = async (spawner: ReturnType<typeof createSpawner>, more: Partial<SpawnRequest> = {}) => {
      await parent.hooks.emit('prompt:submit', { prompt: 'turn' });
      let n = 0;
      while (n < 40 && (await spawner.spawn(parent, request('helper', 'x', more))).status === 'success') n++;
      return n;
    };
    expect(await used(createSpawner())).toBe(32);
    expect(await used(createSpawner({ spawn: { max_sub_sessions: 2 } }))).toBe(2);
    expect(await used(createSpawner({ maxSubSessions: 5 }), { max_sub_sessions: 3 })).toBe(3);
    // A bundle or a caller cannot raise it.
    expect(
      await used(createSpawner({ maxSubSessions: 2, spawn: { max_sub_sessions: 100 } }), {
        max_sub_sessions: 100,
      }),
    ).toBe(2);
    expect(await used(createSpawner({ maxSubSessions: 0 }))).toBe(0);
  });
});
