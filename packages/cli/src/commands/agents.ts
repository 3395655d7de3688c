/**
 * `amplifier agents list|show|dirs`: the agents a session can delegate to.
 */
import type { Command } from 'commander';
import { resolveCwd } from '../run.js';
import { action, display } from './action.js';
import { type Common, collect, common } from './options.js';

type AgentFlags = Common & { bundle?: string; source?: string[] };

/** The bundle flags of `agents list|show`. */
async function agentsOptions(flags: AgentFlags): Promise<{
  cwd: string;
  json: boolean;
  bundle?: string;
  sources?: string[];
  projectTrusted: boolean;
  trustReason: string;
}> {
  const cwd = resolveCwd(flags.cwd);
  const { readOnlyTrust } = await import('../workspace-trust.js');
  return {
    cwd,
    ...readOnlyTrust(cwd, display(flags)),
    json: flags.json ?? false,
    ...(flags.bundle !== undefined && { bundle: flags.bundle }),
    ...(flags.source !== undefined && { sources: flags.source }),
  };
}

function agentsBundleFlags(command: Command): Command {
  return common(command)
    .option('-B, --bundle <file|name>', 'the bundle whose agents: roster to read (besides the agent folders)')
    .option('--source <url=folder>', 'use a local copy for a bundle source (repeatable)', collect, undefined);
}

/** Adds `agents` and its subcommands. */
export function defineAgentsCommands(program: Command): void {
  const agents = program
    .command('agents')
    .description("agents a session can delegate to: the bundle's roster and the agent folders");
  agentsBundleFlags(agents.command('list').description('agents by name, with their description')).action(
    action(async (flags: AgentFlags) =>
      (await import('../agents.js')).listAgents(await agentsOptions(flags), display(flags), process.stdout),
    ),
  );
  agentsBundleFlags(
    agents
      .command('show')
      .description("an agent's definition and instruction")
      .argument('<name>', 'agent name'),
  ).action(
    action(async (name: string, flags: AgentFlags) =>
      (await import('../agents.js')).showAgent(
        name,
        await agentsOptions(flags),
        display(flags),
        process.stdout,
      ),
    ),
  );
  common(agents.command('dirs').description('the folders agent files are read from')).action(
    action(async (flags: Common) =>
      (await import('../agents.js')).agentsDirs(
        { cwd: resolveCwd(flags.cwd), json: flags.json ?? false },
        process.stdout,
      ),
    ),
  );
}
