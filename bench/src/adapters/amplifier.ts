/**
 * Amplifier as a user runs it: an `AmplifierSession` built from a mount plan
 * (loop-basic + context-simple, the scripted provider and the echo tool as
 * modules loaded by the loader), optionally with hooks-logging writing its
 * JSONL log into a temp dir. Nothing is switched off: the hook registry, tool
 * input validation against the schema, per-tool timeouts, output truncation
 * and the context manager's token accounting all run as configured by default.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AmplifierSession, defineTool, type ModuleSpec, type MountPlan, type Tool } from '@amplifier/core';
import { z } from 'zod';
import { SCRIPT_CAPABILITY } from '../modules/scripted-provider.js';
import {
  type Adapter,
  ECHO_ARGS,
  FINAL_TEXT,
  PROMPT,
  type Script,
  TOOL_DESCRIPTION,
  TOOL_NAME,
} from './scenario.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The bench package: its package.json declares our modules, so the loader finds them from here. */
export const BENCH_DIR: string = path.resolve(here, '..', '..');
export const PROVIDER_SOURCE: string = path.resolve(here, '..', 'modules', 'scripted-provider.js');
export const ECHO_SOURCE: string = path.resolve(here, '..', 'modules', 'echo-tool.js');

export const ARRAY_CONTEXT_SOURCE: string = path.resolve(here, '..', 'modules', 'array-context.js');

/** How a plan differs from the headline's (see `createAdapter`). */
export interface PlanOptions {
  /** Another context module, for the context group. */
  context?: string | ModuleSpec;
  /** The provider reports no context window: context-simple's 200k-token default budget, so it compacts. */
  defaultBudget?: boolean;
  /** The echo tool without an execution profile (as most third-party tools). */
  noProfile?: boolean;
  /** The echo tool written with `defineTool` and zod, passed as a module object (`options.modules`). */
  typedTool?: boolean;
}

/** The id of the typed echo tool in the plan and in `options.modules`. */
const TYPED_ECHO = 'bench-typed-echo';

/** The echo tool as an app writes it with core's defineTool and zod; `script()` is the current conversation's. */
function typedEcho(script: () => Script | undefined): Tool {
  return defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    input: z.object({ text: z.string() }),
    executionProfile: { resourceKeys: () => [] },
    execute: ({ text }) => script()?.echo(text) ?? text,
  });
}

/** The mount plan of the headline runs. */
export function headlinePlan(logDir?: string, options: PlanOptions = {}): MountPlan {
  return {
    session: { orchestrator: 'loop-basic', context: options.context ?? 'context-simple' },
    providers: [
      {
        module: 'bench-scripted-provider',
        source: PROVIDER_SOURCE,
        ...(options.defaultBudget && { config: { limits: false } }),
      },
    ],
    tools: options.typedTool
      ? [{ module: TYPED_ECHO }]
      : [
          {
            module: 'bench-echo-tool',
            source: ECHO_SOURCE,
            ...(options.noProfile && { config: { profile: false } }),
          },
        ],
    hooks:
      logDir === undefined
        ? []
        : [
            {
              module: 'hooks-logging',
              config: { session_log_template: path.join(logDir, '{session_id}', 'events.jsonl') },
            },
          ],
  };
}

/**
 * Amplifier through a session; `logging` mounts hooks-logging (logs under a temp
 * dir removed at exit); `context` replaces context-simple in the plan.
 */
export async function createAdapter(options: PlanOptions & { logging?: boolean } = {}): Promise<Adapter> {
  let logDir: string | undefined;
  if (options.logging) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-logs-'));
    logDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const plan = headlinePlan(logDir, options);
  let session: AmplifierSession | undefined;
  let conversation: Script | undefined;
  const modules = options.typedTool ? { [TYPED_ECHO]: typedEcho(() => conversation) } : undefined;
  return {
    name: options.logging ? 'amplifier+logging' : options.typedTool ? 'amplifier+typed-tool' : 'amplifier',
    async prepare(script) {
      conversation = script;
      session = new AmplifierSession(plan, { baseDir: BENCH_DIR, ...(modules && { modules }) });
      session.coordinator.registerCapability(SCRIPT_CAPABILITY, script);
      await session.initialize();
      if (session.failures.length > 0) {
        throw new Error(`modules failed to load: ${session.failures.map((f) => f.module).join(', ')}`);
      }
      const current = session;
      return () => current.execute(PROMPT);
    },
    async finish() {
      await session?.cleanup();
      session = undefined;
    },
  };
}

/** The six modules of the cold-start plan (plus the echo tool the first step calls). */
export const COLD_MODULES: readonly string[] = [
  'loop-basic',
  'context-simple',
  'provider-mock',
  'tool-filesystem',
  'tool-bash',
  'hooks-logging',
];

/**
 * The cold-start session: loop-basic, context-simple, provider-mock (scripted:
 * one echo call, then the final text), tool-filesystem, tool-bash and
 * hooks-logging loaded from a mount plan through the loader, plus the echo tool.
 */
export async function coldAdapter(): Promise<Adapter> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-cold-'));
  process.once('exit', () => rmSync(logDir, { recursive: true, force: true }));
  const plan = coldPlan(logDir);
  let session: AmplifierSession | undefined;
  let name = `amplifier (${COLD_MODULES.join(', ')})`;
  return {
    get name() {
      return name;
    },
    async prepare(script) {
      const current = new AmplifierSession(plan, { baseDir: BENCH_DIR });
      session = current;
      current.coordinator.registerCapability(SCRIPT_CAPABILITY, script);
      await current.initialize();
      const failed = current.failures.map((f) => f.module);
      if (failed.length > 0) name += `; not loaded: ${failed.join(', ')}`;
      return () => current.execute(PROMPT);
    },
    async finish() {
      await session?.cleanup();
    },
  };
}

/**
 * The six-module plan of the cold start (`COLD_MODULES` plus the echo tool):
 * provider-mock answers one echo call, then the final text; hooks-logging
 * writes under `logDir`.
 */
export function coldPlan(logDir: string): MountPlan {
  return {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [
      {
        module: 'provider-mock',
        config: {
          script: [
            { tool_calls: [{ id: 'call_0_0', name: 'echo', arguments: { ...ECHO_ARGS } }] },
            { text: FINAL_TEXT },
          ],
        },
      },
    ],
    tools: [
      { module: 'tool-filesystem' },
      { module: 'tool-bash' },
      { module: 'bench-echo-tool', source: ECHO_SOURCE },
    ],
    hooks: [
      {
        module: 'hooks-logging',
        config: { session_log_template: path.join(logDir, '{session_id}', 'events.jsonl') },
      },
    ],
  };
}
