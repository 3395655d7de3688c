/**
 * `amplifier tool list|invoke|lint`: the tools of the plan, without a model.
 */
import type { Command } from 'commander';
import { resolveCwd } from '../run.js';
import { action, display } from './action.js';
import { type Common, collect, common } from './options.js';

// The implementations load when the command runs.
type ToolCommands = typeof import('../tools.js');
const listTools = async (...a: Parameters<ToolCommands['listTools']>) =>
  (await import('../tools.js')).listTools(...a);
const invokeTool = async (...a: Parameters<ToolCommands['invokeTool']>) =>
  (await import('../tools.js')).invokeTool(...a);
const lintTool = async (...a: Parameters<ToolCommands['lintTool']>) =>
  (await import('../tools.js')).lintTool(...a);

type ToolFlags = Common & { plan?: string; bundle?: string; source?: string[] };

/** The plan flags of `tool list|invoke`. */
function toolPlan(flags: ToolFlags): { plan?: string; bundle?: string; sources?: string[] } {
  return {
    ...(flags.plan !== undefined && { plan: flags.plan }),
    ...(flags.bundle !== undefined && { bundle: flags.bundle }),
    ...(flags.source !== undefined && { sources: flags.source }),
  };
}

/** Adds `tool` and its subcommands. */
export function defineToolCommands(program: Command): void {
  const tool = program.command('tool').description('the tools of the plan, without a model');
  common(tool.command('list').description('tools the plan mounts'))
    .option('--plan <file>', 'a mount plan (default: the built-in one)')
    .option('-B, --bundle <file|name>', 'a bundle instead of a plan')
    .option('--source <url=folder>', 'use a local copy for a bundle source (repeatable)', collect, undefined)
    .action(
      action((flags: ToolFlags) =>
        listTools(
          { ...toolPlan(flags), cwd: flags.cwd, json: flags.json ?? false, verbose: flags.verbose ?? false },
          display(flags),
          process.stdout,
        ),
      ),
    );
  common(
    tool
      .command('invoke')
      .description('run one tool directly and print its result (exit 1 when it fails)')
      .argument('<name>', 'tool name')
      .argument('[args...]', 'key=value pairs; values that parse as JSON are JSON'),
  )
    .option('--plan <file>', 'a mount plan (default: the built-in one)')
    .option('-B, --bundle <file|name>', 'a bundle instead of a plan')
    .option('--source <url=folder>', 'use a local copy for a bundle source (repeatable)', collect, undefined)
    .action(
      action((name: string, args: string[], flags: ToolFlags) =>
        invokeTool(
          name,
          args,
          { ...toolPlan(flags), cwd: flags.cwd, json: flags.json ?? false, verbose: flags.verbose ?? false },
          display(flags),
          process.stdout,
        ),
      ),
    );

  common(
    tool
      .command('lint')
      .description("check an AgentPM tool folder's agent.json like a linter (exit 1 on errors)")
      .argument('<folder>', 'a folder holding agent.json'),
  ).action(
    action((folder: string, flags: Common) =>
      lintTool(folder, { cwd: resolveCwd(flags.cwd), json: flags.json ?? false }, process.stdout),
    ),
  );
}
