/**
 * Real sessions for the delegate tool's tests: a parent AmplifierSession
 * (loop-basic + context-simple + provider-mock + tool-delegate) whose
 * `session.spawn` / `session.resume` capabilities create real child
 * sessions of the same modules, the way an app's spawner does (depth
 * capabilities, nested spawners, the signal passed to the child's turn).
 * Dev dependencies only: modules never import each other in production code.
 */
import { mount as mountContext } from '@amplifier/context-simple';
import {
  AmplifierSession,
  type Coordinator,
  DELEGATION_DEPTH_CAPABILITY,
  errorMessage,
  type MountPlan,
  RESUME_CAPABILITY,
  type ResumeRequest,
  SELF_DELEGATION_DEPTH_CAPABILITY,
  SPAWN_CAPABILITY,
  type SpawnRequest,
  type SpawnResult,
  type SpawnUsage,
  silentLogger,
  type Tool,
} from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { mount as mountMock, type ScriptStep } from '@amplifier/provider-mock';
import { EventRecorder, inProcessLoader } from '@amplifier/testing';
import { mount as mountBash } from '@amplifier/tool-bash';
import { DELEGATE_EVENTS } from '../events.js';
import { mount as mountDelegate } from '../index.js';

/** What one child session runs. */
export interface ChildSpec {
  /** The child provider's script (provider-mock steps). */
  script: ScriptStep[];
  /** In-process tools the child gets. */
  tools?: Tool[];
  /** Mount the real tool-bash (sandbox off) in the child. */
  bash?: boolean;
  /** Mount tool-delegate in the child with this config (nested delegation). */
  delegate?: Record<string, unknown>;
}

export interface HarnessOptions {
  /** The parent provider's script. */
  script: ScriptStep[];
  /** The plan's agents section (the roster). */
  agents?: Record<string, unknown>;
  /** tool-delegate's config, in the parent (and in children that mount it). */
  config?: Record<string, unknown>;
  /** The child for a spawn request (default: one that answers `done by <agent>`). */
  child?: (request: SpawnRequest) => ChildSpec;
  /** Register the capabilities (default both). */
  spawn?: boolean;
  resume?: boolean;
}

export interface Harness {
  parent: AmplifierSession;
  /** Every spawn request, from every level, in order. */
  spawns: SpawnRequest[];
  resumes: ResumeRequest[];
  /** Child sessions by id. */
  children: Map<string, AmplifierSession>;
  /** Every spawn and child turn, to await after a cancellation or a timeout. */
  turns: Promise<unknown>[];
  /** `delegate:*` events of the parent. */
  events: EventRecorder;
  delegate: Tool;
  close(): Promise<void>;
}

function plan(agents: Record<string, unknown> | undefined, tools: MountPlan['tools']): MountPlan {
  return {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [{ module: 'provider-mock' }],
    tools,
    ...(agents !== undefined && { agents }),
  };
}

/** The usage of a child's model calls (from its llm:response events), with a made-up price. */
function usageOf(recorder: EventRecorder): SpawnUsage {
  let input = 0;
  let output = 0;
  for (const [, data] of recorder.events) {
    const usage = (data as { usage?: { input_tokens?: number; output_tokens?: number } }).usage;
    input += usage?.input_tokens ?? 0;
    output += usage?.output_tokens ?? 0;
  }
  return { input_tokens: input, output_tokens: output, cost_usd: (input + output) / 1_000_000 };
}

export async function startParent(options: HarnessOptions): Promise<Harness> {
  const spawns: SpawnRequest[] = [];
  const resumes: ResumeRequest[] = [];
  const children = new Map<string, AmplifierSession>();
  const usage = new Map<string, EventRecorder>();
  const turnCounts = new Map<string, number>();
  const turns: Promise<unknown>[] = [];
  const config = options.config ?? {};
  const childOf =
    options.child ?? ((r: SpawnRequest): ChildSpec => ({ script: [`done by ${r.agent_name}`] }));

  const runTurn = async (
    child: AmplifierSession,
    instruction: string,
    signal: AbortSignal | undefined,
  ): Promise<SpawnResult> => {
    const turn = child.execute(instruction, signal === undefined ? {} : { signal });
    turns.push(turn.catch(() => undefined));
    const turnCount = (turnCounts.get(child.sessionId) ?? 0) + 1;
    turnCounts.set(child.sessionId, turnCount);
    const base = { session_id: child.sessionId, turn_count: turnCount };
    try {
      const output = await turn;
      if (signal?.aborted) return { ...base, output, status: 'cancelled' };
      return { ...base, output, status: 'success', usage: usageOf(usage.get(child.sessionId)!) };
    } catch (error) {
      if (signal?.aborted) return { ...base, output: '', status: 'cancelled' };
      return {
        ...base,
        output: '',
        status: 'error',
        error: { message: errorMessage(error), code: 'CHILD_FAILED' },
      };
    }
  };

  const register = (coordinator: Coordinator, depth: number): void => {
    if (options.spawn !== false) {
      const spawn = async (request: SpawnRequest): Promise<SpawnResult> => {
        spawns.push(request);
        const spec = childOf(request);
        const tools: NonNullable<MountPlan['tools']> = [{ module: 'tools-test' }];
        if (spec.bash) tools.push({ module: 'tool-bash', config: { sandbox: 'off', timeout: 120 } });
        if (spec.delegate) tools.push({ module: 'tool-delegate', config: spec.delegate });
        const child = new AmplifierSession(plan(options.agents, tools), {
          loader: inProcessLoader({
            'loop-basic': mountLoop,
            'context-simple': mountContext,
            'provider-mock': (c) => mountMock(c, { script: spec.script }),
            'tools-test': (c) => {
              for (const tool of spec.tools ?? []) c.mount('tools', tool, { name: tool.name });
            },
            'tool-bash': mountBash,
            'tool-delegate': mountDelegate,
          }),
          logger: silentLogger,
          sessionId: request.sub_session_id,
          parentId: request.parent_session_id,
        });
        await child.initialize();
        child.coordinator.registerCapability(DELEGATION_DEPTH_CAPABILITY, depth + 1);
        child.coordinator.registerCapability(SELF_DELEGATION_DEPTH_CAPABILITY, request.self_delegation_depth);
        register(child.coordinator, depth + 1);
        const recorder = new EventRecorder();
        recorder.attach(child.coordinator.hooks, ['llm:response']);
        usage.set(child.sessionId, recorder);
        children.set(child.sessionId, child);
        return runTurn(child, request.instruction, request.signal);
      };
      // The whole spawn (session start included) is awaited by close() and by tests after a cancellation.
      coordinator.registerCapability(SPAWN_CAPABILITY, (request: SpawnRequest) => {
        const running = spawn(request);
        turns.push(running.catch(() => undefined));
        return running;
      });
    }
    if (options.resume !== false) {
      coordinator.registerCapability(RESUME_CAPABILITY, async (request: ResumeRequest) => {
        resumes.push(request);
        const child = children.get(request.session_id);
        if (child === undefined) {
          return {
            output: '',
            session_id: request.session_id,
            status: 'error',
            turn_count: 0,
            error: { message: `no stored session ${request.session_id}`, code: 'SESSION_NOT_FOUND' },
          };
        }
        return runTurn(child, request.instruction, request.signal);
      });
    }
  };

  const parent = new AmplifierSession(plan(options.agents, [{ module: 'tool-delegate', config }]), {
    loader: inProcessLoader({
      'loop-basic': mountLoop,
      'context-simple': mountContext,
      'provider-mock': (c) => mountMock(c, { script: options.script }),
      'tool-delegate': mountDelegate,
    }),
    logger: silentLogger,
  });
  await parent.initialize();
  register(parent.coordinator, 0);
  const events = new EventRecorder();
  events.attach(parent.coordinator.hooks, [...DELEGATE_EVENTS]);
  const delegate = parent.coordinator.get('tools', 'delegate');
  if (delegate === undefined) throw new Error('tool-delegate mounted no delegate tool');
  return {
    parent,
    spawns,
    resumes,
    children,
    turns,
    events,
    delegate,
    async close() {
      await Promise.all(turns);
      for (const child of children.values()) await child.cleanup();
      await parent.cleanup();
    },
  };
}
