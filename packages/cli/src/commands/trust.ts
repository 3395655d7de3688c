/**
 * `amplifier trust [dir]`, `amplifier trust --revoke [dir]`, `amplifier trust --list`:
 * the workspace trust decisions in `$AMPLIFIER_HOME/trust.json` (docs/trust.md).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { CliError, EXIT_OK, EXIT_USAGE } from '../errors.js';
import {
  fingerprintsOf,
  readTrustStore,
  trustStorePath,
  workspaceKey,
  writeDecision,
} from '../trust-store.js';
import { action, display } from './action.js';
import type { Common } from './options.js';

type TrustFlags = Omit<Common, 'cwd'> & { revoke?: boolean; list?: boolean };

function listDecisions(flags: TrustFlags): number {
  const data = readTrustStore();
  const rows = Object.entries(data.workspaces).sort(([a], [b]) => a.localeCompare(b));
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ file: trustStorePath(), workspaces: Object.fromEntries(rows) }, null, 2)}\n`,
    );
    return EXIT_OK;
  }
  if (rows.length === 0) {
    display(flags).line(`No decisions in ${trustStorePath()}. Trust a folder with: amplifier trust <dir>`);
    return EXIT_OK;
  }
  for (const [key, decision] of rows) {
    process.stdout.write(
      `${decision.trusted ? 'trusted  ' : 'untrusted'}  ${decision.decided_at || '-'}  ${key}\n`,
    );
  }
  return EXIT_OK;
}

async function decide(dir: string | undefined, flags: TrustFlags): Promise<number> {
  if (flags.list) {
    if (dir !== undefined || flags.revoke)
      throw new CliError('--list takes no folder and no --revoke.', EXIT_USAGE);
    return listDecisions(flags);
  }
  const given = dir ?? process.cwd();
  const key = workspaceKey(given);
  const trusted = flags.revoke !== true;
  writeDecision(key, {
    trusted,
    decided_at: new Date().toISOString(),
    // What is trusted is the content seen now: the workspace's .amplifier/ and the given folder's.
    ...(trusted && {
      fingerprints: fingerprintsOf([
        path.join(key, '.amplifier'),
        path.join(path.resolve(given), '.amplifier'),
      ]),
    }),
  });
  const out = display(flags);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ workspace: key, trusted, file: trustStorePath() })}\n`);
    return EXIT_OK;
  }
  const which = key === given ? key : `${key} (the workspace of ${given})`;
  out.line(
    trusted
      ? `Trusted ${which}: its .amplifier/ as it is now (agents, bundles, mcp.json servers, module sources) is used; a change to it asks again. Provider endpoints and credentials still never come from it. Undo with: amplifier trust --revoke ${key}`
      : `Not trusted: ${which}. Its .amplifier/ may only tighten safety. Trust it again with: amplifier trust ${key}`,
  );
  return EXIT_OK;
}

/** Adds `trust`. */
export function defineTrustCommand(program: Command): void {
  program
    .command('trust')
    .description(
      "trust a folder's .amplifier/ (agents, bundles, MCP servers, module sources): the git root around it, else the folder",
    )
    .argument('[dir]', 'the folder (default: the current one)')
    .option('--revoke', 'take the trust back: its .amplifier/ may only tighten safety again')
    .option('--list', 'the decisions stored in $AMPLIFIER_HOME/trust.json')
    .option('--json', 'print JSON for scripts instead of text')
    .option('-v, --verbose', 'more detail: stack traces')
    .action(action((dir: string | undefined, flags: TrustFlags) => decide(dir, flags)));
}
