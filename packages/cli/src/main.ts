/**
 * The `amplifier` command (started by bin.ts). Exit codes: 0 ok, 1 error, 2 usage, 130 cancelled.
 *
 * Each top-level command's definition (options, arguments, action) is in
 * commands/ and is imported only when that command is chosen: a one-shot
 * `amplifier run` defines and loads `run` alone (start-up time). Help, the
 * version, `help` and anything that is not a command name define them all, so
 * the command list and the suggestions for a mistyped name are complete.
 */
import { Command, CommanderError } from 'commander';
import { actionExitCode } from './commands/action.js';
import { EXIT_OK, EXIT_USAGE } from './errors.js';
import { CLI_VERSION } from './modules.js';

type Definer = (program: Command) => void;

/** The top-level commands in help order, each with the loader of the module that defines it. */
const COMMANDS: ReadonlyArray<readonly [name: string, load: () => Promise<Definer>]> = [
  ['run', async () => (await import('./commands/run.js')).defineRunCommands],
  ['continue', async () => (await import('./commands/run.js')).defineRunCommands],
  ['view', async () => (await import('./commands/view.js')).defineViewCommand],
  ['session', async () => (await import('./commands/session.js')).defineSessionCommands],
  ['modules', async () => (await import('./commands/modules.js')).defineModuleCommands],
  ['module', async () => (await import('./commands/modules.js')).defineModuleCommands],
  ['bundle', async () => (await import('./commands/bundle.js')).defineBundleCommands],
  ['agents', async () => (await import('./commands/agents.js')).defineAgentsCommands],
  ['tool', async () => (await import('./commands/tool.js')).defineToolCommands],
  ['mcp', async () => (await import('./commands/mcp.js')).defineMcpCommands],
  ['serve', async () => (await import('./commands/serve.js')).defineServeCommand],
  ['trust', async () => (await import('./commands/trust.js')).defineTrustCommand],
];

const program = new Command('amplifier')
  .description('Run Amplifier agent sessions from a mount plan: tools, providers and hooks as npm modules.')
  .version(CLI_VERSION, '-V, --version')
  // A mistake gets its message and "Did you mean" with one line after it, not the whole help
  // (which pushed the suggestion off the screen).
  .showHelpAfterError('(add --help for the usage)')
  .exitOverride();

/**
 * Define the command `args` names (its first word), or every command when the
 * first word is not a command's name (`--help`, `help`, `-V`, a typo). A module
 * that defines several commands (`run` and `continue`) is applied once.
 */
async function defineCommands(args: readonly string[]): Promise<void> {
  const chosen = COMMANDS.filter(([name]) => name === args[0]);
  const definers = new Set<Definer>();
  for (const [, load] of chosen.length > 0 ? chosen : COMMANDS) definers.add(await load());
  for (const define of definers) define(program);
}

program.addHelpText(
  'after',
  `
Without a command, "amplifier" is "amplifier run".

Exit codes: 0 ok, 1 error, 2 usage, 130 cancelled (Ctrl+C).
Environment: ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL (provider choice; none: the offline
demo), AMPLIFIER_HOME (default ~/.amplifier), AMPLIFIER_MODULES (extra module folders),
AMPLIFIER_OFFLINE=1 (bundle git sources from the cache and --source copies only),
AMPLIFIER_TRUST_PROJECT=1 (trust this folder's .amplifier/ for the run, as --trust-project), NO_COLOR.`,
);

// A reader that went away (`amplifier run --json | head`) is not an error: stop writing, keep cleaning up.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const args = argv.length === 0 ? ['run'] : argv;
  await defineCommands(args);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      const ok = error.code === 'commander.helpDisplayed' || error.code === 'commander.version';
      return ok ? EXIT_OK : EXIT_USAGE;
    }
    throw error;
  }
  return actionExitCode();
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
