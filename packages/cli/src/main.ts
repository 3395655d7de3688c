/**
 * The `amplifier` command (started by bin.ts). Exit codes: 0 ok, 1 error, 2 usage, 130 cancelled.
 */
import { MODULE_TYPES } from '@amplifier/core';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { Display } from './display.js';
import { CliError, describeError, EXIT_OK, EXIT_USAGE } from './errors.js';
import { CLI_VERSION, listModules, validateCommand } from './modules.js';
import { type RunOptions, resolveCwd, runCommand } from './run.js';

// The commands a one-shot `run` does not use are imported when they run (start-up time).
type SessionCommands = typeof import('./session-commands.js');
type ToolCommands = typeof import('./tools.js');
const listSessions = async (...a: Parameters<SessionCommands['listSessions']>) =>
  (await import('./session-commands.js')).listSessions(...a);
const showSession = async (...a: Parameters<SessionCommands['showSession']>) =>
  (await import('./session-commands.js')).showSession(...a);
const deleteSessions = async (...a: Parameters<SessionCommands['deleteSessions']>) =>
  (await import('./session-commands.js')).deleteSessions(...a);
const listTools = async (...a: Parameters<ToolCommands['listTools']>) =>
  (await import('./tools.js')).listTools(...a);
const invokeTool = async (...a: Parameters<ToolCommands['invokeTool']>) =>
  (await import('./tools.js')).invokeTool(...a);
const lintTool = async (...a: Parameters<ToolCommands['lintTool']>) =>
  (await import('./tools.js')).lintTool(...a);

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

program
  .command('view')
  .description('the session viewer: a local web app over the stored sessions, on 127.0.0.1')
  .option('--port <n>', 'port (default: any free one)', port)
  .option('--no-open', 'do not open a browser; the URL is printed')
  .action(
    action(async (flags: { port?: number; open?: boolean }) =>
      (await import('./view.js')).viewCommand({
        ...(flags.port !== undefined && { port: flags.port }),
        open: flags.open ?? true,
      }),
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

type AgentFlags = Common & { bundle?: string; source?: string[] };

/** The bundle flags of `agents list|show`. */
function agentsOptions(flags: AgentFlags): {
  cwd: string;
  json: boolean;
  bundle?: string;
  sources?: string[];
} {
  return {
    cwd: resolveCwd(flags.cwd),
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

const agents = program
  .command('agents')
  .description("agents a session can delegate to: the bundle's roster and the agent folders");
agentsBundleFlags(agents.command('list').description('agents by name, with their description')).action(
  action(async (flags: AgentFlags) =>
    (await import('./agents.js')).listAgents(agentsOptions(flags), display(flags), process.stdout),
  ),
);
agentsBundleFlags(
  agents
    .command('show')
    .description("an agent's definition and instruction")
    .argument('<name>', 'agent name'),
).action(
  action(async (name: string, flags: AgentFlags) =>
    (await import('./agents.js')).showAgent(name, agentsOptions(flags), display(flags), process.stdout),
  ),
);
common(agents.command('dirs').description('the folders agent files are read from')).action(
  action(async (flags: Common) =>
    (await import('./agents.js')).agentsDirs(
      { cwd: resolveCwd(flags.cwd), json: flags.json ?? false },
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

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError('a port number from 0 to 65535 (0 picks a free one)');
  }
  return n;
}

type ServeFlags = Common & {
  plan?: string;
  bundle?: string;
  source?: string[];
  agent?: boolean;
  provider?: string;
  model?: string;
  tools?: string[];
  includeMcp?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  token?: string;
  allowOrigin?: string[];
  allowHost?: string[];
};

const mcp = program
  .command('mcp')
  .description("the Model Context Protocol: serve this project's tools, manage the MCP servers sessions use");
common(
  mcp
    .command('serve')
    .description(
      "serve the plan's tools (or the agent, --agent) to MCP hosts such as Claude Code and Cursor, over stdio or --http",
    ),
)
  .option('--plan <file>', 'a mount plan (default: the built-in one)')
  .option('-B, --bundle <file|name>', 'a bundle instead of a plan')
  .option('--source <url=folder>', 'use a local copy for a bundle source (repeatable)', collect, undefined)
  .option('--agent', 'serve the whole agent as one tool, amplifier_agent {prompt, session_id?}')
  .addOption(
    new Option('-p, --provider <name>', 'model provider (--agent)').choices(['anthropic', 'openai', 'mock']),
  )
  .option('-m, --model <model>', 'model id for the provider (--agent)')
  .option('--tools <names>', 'serve only these tools (comma-separated, repeatable)', collect, undefined)
  .option('--include-mcp', "also serve the plan's mcp_* tools (off by default: proxy loops)")
  .option('--http', 'Streamable HTTP on /mcp instead of stdio')
  .option('--host <address>', 'address to bind with --http (default 127.0.0.1)')
  .option('--port <n>', 'port with --http (default 8808; 0 picks a free one)', port)
  .option('--token <token>', 'bearer token clients must send (--http; default $AMPLIFIER_MCP_TOKEN)')
  .option(
    '--allow-origin <origin>',
    'a browser Origin allowed besides loopback ones (repeatable)',
    collect,
    undefined,
  )
  .option(
    '--allow-host <host>',
    "a Host header allowed besides this server's address (repeatable)",
    collect,
    undefined,
  )
  .action(
    action(async (flags: ServeFlags) => {
      const { serveCommand } = await import('./mcp-serve.js');
      return serveCommand({
        plan: flags.plan,
        bundle: flags.bundle,
        sources: flags.source,
        cwd: flags.cwd,
        verbose: flags.verbose ?? false,
        agent: flags.agent ?? false,
        provider: flags.provider,
        model: flags.model,
        tools: flags.tools,
        includeMcp: flags.includeMcp ?? false,
        http: flags.http ?? false,
        host: flags.host,
        port: flags.port,
        token: flags.token,
        allowOrigins: flags.allowOrigin,
        allowHosts: flags.allowHost,
      });
    }),
  );

type DurableFlags = Common & {
  durable?: boolean;
  plan?: string;
  provider?: string;
  model?: string;
  port?: number;
  host?: string;
  restateAdminUrl?: string;
  restateIngressUrl?: string;
  restateDir?: string;
  advertisedUrl?: string;
};

common(
  program
    .command('serve')
    .description(
      'serve sessions as durable Restate virtual objects (--durable): a turn survives a crashed worker',
    ),
)
  .option('--durable', 'durable sessions on Restate (the one mode so far)')
  .option('--plan <file>', 'a mount plan (default: the built-in one)')
  .addOption(new Option('-p, --provider <name>', 'model provider').choices(['anthropic', 'openai', 'mock']))
  .option('-m, --model <model>', 'model id for the provider')
  .option('--port <n>', "the worker's port (default: a free one)", port)
  .option('--host <address>', 'address the worker binds (default 127.0.0.1)')
  .option(
    '--restate-admin-url <url>',
    "an existing cluster's admin API (default $RESTATE_ADMIN_URL, else a local server)",
  )
  .option('--restate-ingress-url <url>', "an existing cluster's ingress (default $RESTATE_INGRESS_URL)")
  .option('--restate-dir <dir>', "keep the local server's data here (default: a temp dir removed on exit)")
  .option(
    '--advertised-url <url>',
    'the URL Restate reaches this worker at (a load balancer in front of workers)',
  )
  .action(
    action(async (flags: DurableFlags) => {
      if (!flags.durable) {
        throw new CliError(
          'serve needs --durable (the only mode so far): amplifier serve --durable',
          EXIT_USAGE,
        );
      }
      const { durableServeCommand } = await import('./durable-serve.js');
      return durableServeCommand(
        {
          plan: flags.plan,
          provider: flags.provider,
          model: flags.model,
          cwd: resolveCwd(flags.cwd),
          json: flags.json ?? false,
          port: flags.port,
          host: flags.host,
          restateAdminUrl: flags.restateAdminUrl,
          restateIngressUrl: flags.restateIngressUrl,
          restateDir: flags.restateDir,
          advertisedUrl: flags.advertisedUrl,
        },
        display(flags),
      );
    }),
  );

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

type McpFileFlags = Common & { project?: boolean };

common(
  mcp
    .command('list')
    .description('the MCP servers of the user and project configs, with where each comes from'),
).action(
  action(async (flags: Common) => {
    const { listServers } = await import('./mcp-config.js');
    return listServers(
      { cwd: resolveCwd(flags.cwd), json: flags.json ?? false },
      display(flags),
      process.stdout,
    );
  }),
);
common(
  mcp
    .command('add')
    .description('add a server: amplifier mcp add <name> -- <command> [args...], or --url <url>')
    .argument('<name>', 'the server name (tools are mounted as mcp_<name>_<tool>)')
    .argument('[command...]', 'after --: the program that starts a stdio server, and its arguments'),
)
  .option('--project', 'write ./.amplifier/mcp.json instead of ~/.amplifier/mcp.json')
  .option('--url <url>', 'a Streamable HTTP (or --type sse) server instead of a command')
  .addOption(
    new Option('--type <type>', 'transport (default: stdio for a command, http for --url)').choices([
      'stdio',
      'http',
      'sse',
    ]),
  )
  .option('--header <name:value>', 'an HTTP header for --url (repeatable)', collect, undefined)
  .option('-e, --env <KEY=value>', 'an environment variable for the command (repeatable)', collect, undefined)
  .option('-f, --force', 'replace a server of the same name')
  .action(
    action(
      async (
        name: string,
        command: string[],
        flags: McpFileFlags & {
          url?: string;
          type?: string;
          header?: string[];
          env?: string[];
          force?: boolean;
        },
      ) => {
        const { addServer } = await import('./mcp-config.js');
        return addServer(
          name,
          command,
          {
            cwd: resolveCwd(flags.cwd),
            project: flags.project ?? false,
            force: flags.force ?? false,
            url: flags.url,
            type: flags.type,
            headers: flags.header,
            env: flags.env,
          },
          process.stdout,
        );
      },
    ),
  );
common(
  mcp
    .command('remove')
    .description('remove a server from the user config (or the project config, --project)')
    .argument('<name>', 'the server name'),
)
  .option('--project', 'edit ./.amplifier/mcp.json instead of ~/.amplifier/mcp.json')
  .action(
    action(async (name: string, flags: McpFileFlags) => {
      const { removeServer } = await import('./mcp-config.js');
      return removeServer(
        name,
        { cwd: resolveCwd(flags.cwd), project: flags.project ?? false },
        display(flags),
        process.stdout,
      );
    }),
  );
common(
  mcp
    .command('test')
    .description('start a configured server, list its tools (calling none) and stop it')
    .argument('<name>', 'the server name'),
)
  .option('--timeout <seconds>', 'how long the server may take to start (default 30)', seconds)
  .action(
    action(async (name: string, flags: Common & { timeout?: number }) => {
      const { testServer } = await import('./mcp-config.js');
      return testServer(
        name,
        {
          cwd: resolveCwd(flags.cwd),
          json: flags.json ?? false,
          ...(flags.timeout !== undefined && { timeoutMs: Math.round(flags.timeout * 1000) }),
        },
        display(flags),
        process.stdout,
      );
    }),
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
