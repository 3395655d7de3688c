/**
 * Agents for the CLI: the bundle's roster (its `agents:`, filled from
 * `agents/<name>.md`) plus the agent folders (`./.amplifier/agents`, then
 * `<AMPLIFIER_HOME>/agents`), and `amplifier agents list | show | dirs`.
 * The bundle's agents win over a folder's of the same name.
 */
import {
  type AgentConfig,
  type Bundle,
  buildSystemPrompt,
  loadAgentDir,
  resolveAgents,
  type SpawnRule,
} from '@amplifier/bundles';
import { type MountPlan, parseMountPlan, setOwn } from '@amplifier/core';
import { agentDirs } from './agent-dirs.js';
import { promptOptions } from './bundles.js';
import type { Display } from './display.js';
import { CliError, EXIT_OK } from './errors.js';
import { table } from './modules.js';

/** The agents a session may delegate to, and what could not be read. */
export interface Roster {
  agents: Record<string, AgentConfig>;
  warnings: string[];
}

/** The bundle's roster (if any), then the agent folders' agents that it does not name. */
export function cliRoster(cwd: string, bundle?: Bundle, env: NodeJS.ProcessEnv = process.env): Roster {
  const agents: Record<string, AgentConfig> = {};
  const warnings: string[] = [];
  if (bundle !== undefined) {
    const resolved = resolveAgents(bundle, { roots: [cwd] });
    Object.assign(agents, resolved.agents);
    warnings.push(...resolved.warnings);
  }
  for (const dir of agentDirs(cwd, env)) {
    const listing = loadAgentDir(dir);
    warnings.push(...listing.problems);
    for (const [name, agent] of Object.entries(listing.agents)) {
      if (!Object.hasOwn(agents, name)) setOwn(agents, name, agent);
    }
  }
  return { agents, warnings };
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
}

async function roster(options: AgentsOptions): Promise<Roster> {
  let bundle: Bundle | undefined;
  if (options.bundle !== undefined) {
    const { loadCliBundle } = await import('./bundles.js');
    bundle = await loadCliBundle(options.bundle, { cwd: options.cwd, sources: options.sources });
  }
  return cliRoster(options.cwd, bundle);
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
  bundle?: Bundle,
  warn: (message: string) => void = () => {},
): RunAgents {
  const { agents, warnings } = cliRoster(cwd, bundle);
  const own = (plan.agents ?? {}) as Record<string, unknown>;
  const roster: Record<string, unknown> = { ...rosterPlanData(agents) };
  for (const [name, value] of Object.entries(own)) {
    if (bundle === undefined || !Object.hasOwn(roster, name)) setOwn(roster, name, value);
  }
  const withRoster =
    Object.keys(roster).length === 0 ? plan : parseMountPlan({ ...plan, agents: roster } as MountPlan);
  const prompt = promptOptions(cwd, warn);
  return {
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
