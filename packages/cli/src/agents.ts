/**
 * Agents for the CLI: the bundle's roster (its `agents:`, filled from
 * `agents/<name>.md`) plus the agent folders (`<AMPLIFIER_HOME>/agents`, then
 * `./.amplifier/agents`), and `amplifier agents list | show | dirs`. The
 * bundle's agents win over a folder's of the same name, the user's over the
 * project's: a project agent whose name is taken is offered as
 * `project:<name>`, and a notice says so. A project agent is restricted by the
 * folder's trust (project-config.ts).
 */

import path from 'node:path';
import {
  type AgentConfig,
  type Bundle,
  buildSystemPrompt,
  loadAgentDir,
  resolveAgents,
  type SpawnRule,
} from '@amplifier/bundles';
import { type MountPlan, parseMountPlan, setOwn } from '@amplifier/core';
import { terminalSafe } from '@amplifier/process/terminal';
import { agentDirs, projectAgentDir } from './agent-dirs.js';
import { promptOptions } from './bundles.js';
import type { Display } from './display.js';
import { CliError, EXIT_OK } from './errors.js';
import { table } from './modules.js';
import { type IgnoredKey, type ProjectContext, restrictProjectAgent } from './project-config.js';

/** The agents a session may delegate to, what could not be read, and the project keys not used. */
export interface Roster {
  agents: Record<string, AgentConfig>;
  warnings: string[];
  ignored: IgnoredKey[];
}

/**
 * The bundle's roster (if any), then the user's agent folder's agents that it
 * does not name, then the project's (as `project:<name>` when the name is
 * taken), each restricted by `project` (the folder's trust and the session's
 * plan) when given.
 */
export function cliRoster(
  cwd: string,
  bundle?: Bundle,
  env: NodeJS.ProcessEnv = process.env,
  project?: ProjectContext,
): Roster {
  const agents: Record<string, AgentConfig> = {};
  const warnings: string[] = [];
  const ignored: IgnoredKey[] = [];
  if (bundle !== undefined) {
    const resolved = resolveAgents(bundle, { roots: [cwd] });
    Object.assign(agents, resolved.agents);
    warnings.push(...resolved.warnings);
  }
  const projectDir = projectAgentDir(cwd);
  for (const dir of agentDirs(cwd, env)) {
    const fromProject = path.resolve(dir) === path.resolve(projectDir);
    const listing = loadAgentDir(dir);
    warnings.push(...listing.problems);
    for (const [name, found] of Object.entries(listing.agents)) {
      let agent = found;
      if (fromProject && project !== undefined) {
        const restricted = restrictProjectAgent(found, project);
        agent = restricted.agent;
        ignored.push(...restricted.ignored);
      }
      if (!Object.hasOwn(agents, name)) {
        setOwn(agents, name, agent);
        continue;
      }
      if (!fromProject) continue;
      const alias = `project:${name}`;
      warnings.push(
        terminalSafe(
          `agent '${name}': using ${agents[name]?.file ?? "the bundle's"}. The project's ${found.file} has the same name and never replaces it (project files never shadow yours); it is offered as '${alias}'.`,
        ),
      );
      if (!Object.hasOwn(agents, alias)) setOwn(agents, alias, { ...agent, name: alias });
    }
  }
  return { agents, warnings, ignored };
}

/** The roster as plan data (the plan's `agents` section): what the delegate tool lists and spawns. */
export function rosterPlanData(agents: Record<string, AgentConfig>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, agent] of Object.entries(agents)) setOwn(out, name, { ...agent });
  return out;
}

interface AgentsOptions {
  cwd: string;
  json: boolean;
  bundle?: string | undefined;
  sources?: string[] | undefined;
  /** The folder's `.amplifier/` is trusted. */
  projectTrusted?: boolean | undefined;
  trustReason?: string | undefined;
}

async function roster(options: AgentsOptions): Promise<Roster> {
  let bundle: Bundle | undefined;
  const warnings: string[] = [];
  if (options.bundle !== undefined) {
    const { loadCliBundle } = await import('./bundles.js');
    bundle = await loadCliBundle(options.bundle, {
      cwd: options.cwd,
      sources: options.sources,
      projectTrusted: options.projectTrusted,
      trustReason: options.trustReason,
      notice: (m) => warnings.push(m),
    });
  }
  const found = cliRoster(options.cwd, bundle);
  const projectDir = projectAgentDir(options.cwd);
  const fromProject = Object.values(found.agents).some((a) => a.file?.startsWith(projectDir + path.sep));
  if (fromProject && options.projectTrusted !== true) {
    warnings.push(
      `The agents of ${projectDir} are shown as written; this folder is not trusted (${options.trustReason ?? 'not decided'}), so a session uses only their tightening keys. Trust it with: amplifier trust ${options.cwd}`,
    );
  }
  return { ...found, warnings: [...warnings, ...found.warnings] };
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

/** `amplifier agents list [--bundle <b>] [--json]`. */
export async function listAgents(
  options: AgentsOptions,
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { agents, warnings } = await roster(options);
  for (const warning of warnings) display.warn(warning);
  const names = Object.keys(agents).sort();
  if (options.json) {
    out.write(
      `${JSON.stringify(
        names.map((name) => ({
          name,
          description: agents[name]?.description ?? '',
          file: agents[name]?.file ?? null,
        })),
        null,
        2,
      )}\n`,
    );
    return EXIT_OK;
  }
  if (names.length === 0) {
    display.line(
      `No agents. Give a bundle with agents (--bundle <b>) or put agent files in ${agentDirs(options.cwd).join(' or ')}.`,
    );
    return EXIT_OK;
  }
  out.write(
    table(
      ['NAME', 'DESCRIPTION'],
      names.map((name) => [name, firstLine(agents[name]?.description ?? '').slice(0, 90)]),
    ),
  );
  return EXIT_OK;
}

/** `amplifier agents show <name> [--bundle <b>] [--json]`: the definition and its instruction. */
export async function showAgent(
  name: string,
  options: AgentsOptions,
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { agents, warnings } = await roster(options);
  for (const warning of warnings) display.warn(warning);
  const agent = Object.hasOwn(agents, name)
    ? agents[name]
    : Object.values(agents).find((a) => a.name.endsWith(`:${name}`) || a.meta.name === name);
  if (agent === undefined) {
    const known = Object.keys(agents).sort();
    throw new CliError(
      `No agent '${name}'. Known: ${known.length > 0 ? known.join(', ') : 'none'}. List them with: amplifier agents list${options.bundle ? ` --bundle ${options.bundle}` : ''}`,
    );
  }
  if (options.json) {
    out.write(`${JSON.stringify(agent, null, 2)}\n`);
    return EXIT_OK;
  }
  const c = display.colors;
  const modules = (key: 'tools' | 'providers' | 'hooks'): string[] =>
    agent[key] === undefined
      ? []
      : [`${c.bold(key.padEnd(10))} ${(agent[key] ?? []).map((m) => m.module).join(', ')}`];
  const lines = [
    `${c.bold('agent'.padEnd(10))} ${agent.name}`,
    ...(agent.file ? [`${c.bold('file'.padEnd(10))} ${agent.file}`] : []),
    ...modules('tools'),
    ...modules('providers'),
    ...modules('hooks'),
    ...(agent.provider_preferences
      ? [
          `${c.bold('prefers'.padEnd(10))} ${agent.provider_preferences.map((p) => `${p.provider}${p.model ? `/${p.model}` : ''}`).join(', ')}`,
        ]
      : []),
    ...(agent.model_role ? [`${c.bold('role'.padEnd(10))} ${[agent.model_role].flat().join(', ')}`] : []),
    ...(agent.agents ? [`${c.bold('agents'.padEnd(10))} ${[agent.agents].flat().join(', ')}`] : []),
    '',
    agent.description.trim(),
    '',
    c.dim('--- instruction ---'),
    agent.instruction ?? c.dim('(none)'),
  ];
  out.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}

/** `amplifier agents dirs`: where agent files are read from. */
export function agentsDirs(options: { cwd: string; json: boolean }, out: NodeJS.WritableStream): number {
  const dirs = agentDirs(options.cwd);
  out.write(options.json ? `${JSON.stringify(dirs, null, 2)}\n` : `${dirs.join('\n')}\n`);
  return EXIT_OK;
}

/** What a run needs for delegation: the plan with its roster, the spawn rule, the child prompt builder. */
export interface RunAgents {
  plan: MountPlan;
  spawn?: SpawnRule | undefined;
  systemPrompt: (agent: AgentConfig | undefined) => Promise<string | undefined>;
  warnings: string[];
  /** Project keys the roster does not use (shown once with the run's other ignored keys). */
  ignored: IgnoredKey[];
}

/**
 * The plan a run starts with its roster in `agents` (the bundle's, then the
 * agent folders'; a plan file's own `agents` entries win over the folders'),
 * and a child's system prompt: the agent's instruction with its @mentions
 * resolved as the bundle's are.
 */
export function runAgents(
  plan: MountPlan,
  cwd: string,
  bundle: Bundle | undefined,
  projectTrusted: boolean,
  warn: (message: string) => void = () => {},
): RunAgents {
  const { agents, warnings, ignored } = cliRoster(cwd, bundle, process.env, {
    trusted: projectTrusted,
    workspace: cwd,
    plan,
  });
  const own = (plan.agents ?? {}) as Record<string, unknown>;
  const roster: Record<string, unknown> = { ...rosterPlanData(agents) };
  for (const [name, value] of Object.entries(own)) {
    if (bundle === undefined || !Object.hasOwn(roster, name)) setOwn(roster, name, value);
  }
  const withRoster =
    Object.keys(roster).length === 0 ? plan : parseMountPlan({ ...plan, agents: roster } as MountPlan);
  const prompt = promptOptions(cwd, warn, process.env, projectTrusted);
  return {
    ignored,
    plan: withRoster,
    spawn: bundle?.spawn as SpawnRule | undefined,
    systemPrompt: async (agent) => {
      if (agent?.instruction === undefined) return undefined;
      if (bundle === undefined) return agent.instruction;
      // The agent's @mentions start from its own file.
      return buildSystemPrompt(
        { ...bundle, instruction: agent.instruction, instructionFile: agent.file, context: [] },
        prompt,
      );
    },
    warnings,
  };
}
