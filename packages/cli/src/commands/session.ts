/**
 * `amplifier session list|show|delete`: the stored sessions.
 */
import type { Command } from 'commander';
import { Display } from '../display.js';
import { resolveCwd } from '../run.js';
import { action, display } from './action.js';
import { type Common, common } from './options.js';

// The implementations load when the command runs.
type SessionCommands = typeof import('../session-commands.js');
const listSessions = async (...a: Parameters<SessionCommands['listSessions']>) =>
  (await import('../session-commands.js')).listSessions(...a);
const showSession = async (...a: Parameters<SessionCommands['showSession']>) =>
  (await import('../session-commands.js')).showSession(...a);
const deleteSessions = async (...a: Parameters<SessionCommands['deleteSessions']>) =>
  (await import('../session-commands.js')).deleteSessions(...a);

/** Adds `session` and its subcommands. */
export function defineSessionCommands(program: Command): void {
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
}
