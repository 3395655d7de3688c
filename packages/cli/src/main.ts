/**
 * The `amplifier` command (started by bin.ts). Exit codes: 0 ok, 1 error, 2 usage, 130 cancelled.
 */
import { MODULE_TYPES } from '@amplifier/core';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { Display } from './display.js';
import { describeError, EXIT_OK, EXIT_USAGE } from './errors.js';
import { CLI_VERSION, listModules, validateCommand } from './modules.js';
import { type RunOptions, resolveCwd, runCommand } from './run.js';
import { deleteSessions, listSessions, showSession } from './session-commands.js';
import { invokeTool, lintTool, listTools } from './tools.js';

let exitCode = EXIT_OK;

/** A repeatable option's values. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || (n < 1 && n !== -1)) {
    throw new InvalidArgumentError('a whole number >= 1, or -1 for no limit');
  }
  return n;
}

interface Common {
  cwd?: string;
  json?: boolean;
  verbose?: boolean;
}

function common(command: Command): Command {
  return command
    .option('--cwd <dir>', 'working directory of the session and its tools (default: the current one)')
    .option('--json', 'print JSON for scripts instead of text')
    .option('-v, --verbose', 'more detail: debug lines, thinking, stack traces');
}

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
      .addOption(
        new Option('-p, --provider <name>', 'model provider').choices(['anthropic', 'openai', 'mock']),
      )
      .option('-m, --model <model>', 'model id for the provider')
      .option('--max-iterations <n>', 'provider calls per turn before the loop wraps up', integer)
      .option('--redact', "apply the event log's secret redaction to everything printed (--json included)")
      .option('--no-thinking', "hide the model's streamed thinking (shown dimmed on stderr by default)"),
  );
}

/** Wrap a command action: its return value is the exit code; errors are printed without a stack. */
function action<A extends unknown[]>(
  handler: (...args: A) => Promise<number> | number,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const options = args.find(
      (a): a is Common => typeof a === 'object' && a !== null && !(a instanceof Command),
    );
    try {
      exitCode = await handler(...args);
    } catch (error) {
      const display = new Display({ verbose: options?.verbose ?? false });
      const { message, exitCode: code } = describeError(error, options?.verbose ?? false);
      display.error(message);
      exitCode = code;
    }
  };
}

function display(options: Common): Display {
  return new Display({ verbose: options.verbose ?? false });
}

const program = new Command('amplifier')
  .description('Run Amplifier agent sessions from a mount plan: tools, providers and hooks as npm modules.')
  .version(CLI_VERSION, '-V, --version')
  .showHelpAfterError()
  .exitOverride();

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
  };
}

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

const session = program
  .command('session')
  .description('stored sessions (AMPLIFIER_HOME/projects/<project>/sessions)');
common(session.command('list').description("this project's sessions, newest first"))
  .option('-a, --all', 'sessions of every project')
  .action(
    action((flags: Common & { all?: boolean }) =>
      listSessions(
        { cwd: resolveCwd(flags.cwd), all: flags.all ?? false, json: flags.json ?? false },
        display(flags),
        process.stdout,
      ),
    ),
  );
common(
  session
    .command('show')
    .description('metadata, conversation and event counts of a session')
    .argument('<id>', 'id or unique prefix'),
)
  .option('--redact', "apply the event log's secret redaction to what is printed")
  .action(
    action((id: string, flags: Common & { redact?: boolean }) => {
      const redact = flags.redact ?? false;
      return showSession(
        id,
        { cwd: resolveCwd(flags.cwd), json: flags.json ?? false },
        new Display({ verbose: flags.verbose ?? false, redact }),
        process.stdout,
      );
    }),
  );
common(
  session
    .command('delete')
    .description('delete sessions (transcript, metadata, events)')
    .argument('<id...>', 'ids or unique prefixes'),
).action(
  action((ids: string[], flags: Common) =>
    deleteSessions(ids, { cwd: resolveCwd(flags.cwd) }, display(flags)),
  ),
);

common(
  program
    .command('modules')
    .description('installed modules')
    .command('list')
    .description('modules found from the current directory and the ones bundled with the CLI'),
).action(
  action((flags: Common) =>
    listModules(resolveCwd(flags.cwd), display(flags), flags.json ?? false, process.stdout),
  ),
);

common(
  program
    .command('module')
    .description('one module')
    .command('validate')
    .description("check a module's structure and behaviour (exit 1 on failure)")
    .argument('<target>', 'a folder, a package name or a module id'),
)
  .addOption(
    new Option('-t, --type <type>', 'validate as this type (default: from its package.json)').choices(
      MODULE_TYPES,
    ),
  )
  .action(
    action((target: string, flags: Common & { type?: string }) =>
      validateCommand(
        target,
        {
          cwd: resolveCwd(flags.cwd),
          json: flags.json ?? false,
          ...(flags.type !== undefined && { type: flags.type }),
        },
        display(flags),
        process.stdout,
      ),
    ),
  );

const bundle = program
  .command('bundle')
  .description('Amplifier bundles: named ones (project, user, shipped, well-known) and their composed plans');
common(bundle.command('list').description('bundles found by name, first hit wins')).action(
  action(async (flags: Common) => {
    // Loaded on use: a run without bundles never loads the bundle kit.
    const { listBundles } = await import('./bundles.js');
    return listBundles(
      { cwd: resolveCwd(flags.cwd), json: flags.json ?? false },
      display(flags),
      process.stdout,
    );
  }),
);
common(
  bundle
    .command('show')
    .description('the composed mount plan of a bundle (YAML; --json for JSON); warnings on stderr')
    .argument('<bundle>', 'a file, a folder, a name or a URI'),
)
  .option('--source <url=folder>', 'use a local copy for a bundle source (repeatable)', collect, undefined)
  .option('--instructions', 'print the system prompt (body, context files, @mentions) instead of the plan')
  .action(
    action(async (ref: string, flags: Common & { source?: string[]; instructions?: boolean }) =>
      (await import('./bundles.js')).showBundle(
        ref,
        {
          cwd: resolveCwd(flags.cwd),
          json: flags.json ?? false,
          sources: flags.source,
          instructions: flags.instructions ?? false,
        },
        display(flags),
        process.stdout,
      ),
    ),
  );

type ToolFlags = Common & { plan?: string; bundle?: string; source?: string[] };

/** The plan flags of `tool list|invoke`. */
function toolPlan(flags: ToolFlags): { plan?: string; bundle?: string; sources?: string[] } {
  return {
    ...(flags.plan !== undefined && { plan: flags.plan }),
    ...(flags.bundle !== undefined && { bundle: flags.bundle }),
    ...(flags.source !== undefined && { sources: flags.source }),
  };
}

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

program.addHelpText(
  'after',
  `
Without a command, "amplifier" is "amplifier run".

Exit codes: 0 ok, 1 error, 2 usage, 130 cancelled (Ctrl+C).
Environment: ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL (provider choice; none: the offline
demo), AMPLIFIER_HOME (default ~/.amplifier), AMPLIFIER_MODULES (extra module folders),
AMPLIFIER_OFFLINE=1 (bundle git sources from the cache and --source copies only), NO_COLOR.`,
);

// A reader that went away (`amplifier run --json | head`) is not an error: stop writing, keep cleaning up.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  try {
    await program.parseAsync(argv.length === 0 ? ['run'] : argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      const ok = error.code === 'commander.helpDisplayed' || error.code === 'commander.version';
      return ok ? EXIT_OK : EXIT_USAGE;
    }
    throw error;
  }
  return exitCode;
}

/**
 * Resolves once everything written to `stream` so far has reached the OS: a
 * pipe's writes are asynchronous, and `process.exit()` drops what is queued
 * (`session show --json | less` stopped at ~200 KB). A stream that failed or
 * closed (the reader went away) has nothing left to wait for.
 */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', resolve);
    stream.write('', () => resolve());
  });
}

/** Exit with `code` once stdout and stderr have drained (exit: open handles must not keep the process alive). */
async function exitWhenFlushed(code: number): Promise<never> {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

main().then(exitWhenFlushed, (error: unknown) => {
  console.error(error);
  return exitWhenFlushed(1);
});
