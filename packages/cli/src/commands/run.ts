/**
 * `amplifier run` and `amplifier continue`: a prompt (or the REPL) on a plan or a bundle.
 */
import { type Command, Option } from 'commander';
import { PROVIDERS } from '../plan.js';
import { type RunOptions, runCommand } from '../run.js';
import { action } from './action.js';
import { type Common, collect, common, integer } from './options.js';

/** The flags of `run` and `continue`. */
function runOptions(command: Command): Command {
  return common(
    command
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder syntax of plan files
      .option('--plan <file>', 'a mount plan (YAML or JSON; ${VAR} and ${VAR:default} expanded)')
      .option(
        '-B, --bundle <file|name>',
        'an Amplifier bundle (bundle.md, .yaml, a folder, a name or a git+https URL)',
      )
      .option(
        '--source <url=folder>',
        'use a local copy for a bundle source (repeatable): --source git+https://github.com/org/repo=./repo',
        collect,
        undefined,
      )
      .addOption(new Option('-p, --provider <name>', 'model provider').choices(Object.keys(PROVIDERS)))
      .option('-m, --model <model>', 'model id for the provider')
      .option('--max-iterations <n>', 'provider calls per turn before the loop wraps up', integer)
      .option('--redact', "apply the event log's secret redaction to everything printed (--json included)")
      .option('--no-thinking', "hide the model's streamed thinking (shown dimmed on stderr by default)")
      .option(
        '--trust-project',
        "trust this folder's .amplifier/ for this run only (see amplifier trust; env AMPLIFIER_TRUST_PROJECT=1)",
      ),
  );
}

type RunFlags = Common & {
  plan?: string;
  bundle?: string;
  source?: string[];
  provider?: string;
  model?: string;
  maxIterations?: number;
  resume?: string;
  redact?: boolean;
  thinking?: boolean;
  trustProject?: boolean;
};

/** `run` and `continue`: the prompt words and flags as runCommand's options. */
function runOptionsOf(words: string[], flags: RunFlags): RunOptions {
  return {
    prompt: words.length > 0 ? words.join(' ') : undefined,
    plan: flags.plan,
    bundle: flags.bundle,
    sources: flags.source,
    provider: flags.provider,
    model: flags.model,
    maxIterations: flags.maxIterations,
    cwd: flags.cwd,
    verbose: flags.verbose ?? false,
    json: flags.json ?? false,
    redact: flags.redact ?? false,
    thinking: flags.thinking ?? true,
    resume: flags.resume,
    trustProject: flags.trustProject ?? false,
  };
}

/** Adds `run` and `continue`. */
export function defineRunCommands(program: Command): void {
  runOptions(
    program
      .command('run')
      .description(
        'run a prompt (argument or stdin); with neither, an interactive session (REPL) on a terminal',
      )
      .argument('[prompt...]', 'the prompt (words are joined with spaces)')
      .option('-r, --resume <id>', 'continue the session with this id (or a unique prefix)'),
  ).action(action((words: string[], flags: RunFlags) => runCommand(runOptionsOf(words, flags))));

  runOptions(
    program
      .command('continue')
      .description("resume this project's most recent session, with a prompt or interactively")
      .argument('[prompt...]', 'the prompt'),
  ).action(
    action((words: string[], flags: RunFlags) =>
      runCommand({ ...runOptionsOf(words, flags), continueLatest: true }),
    ),
  );
}
