/**
 * `amplifier view`: the session viewer.
 */
import type { Command } from 'commander';
import { action } from './action.js';
import { port } from './options.js';

/** Adds `view`. */
export function defineViewCommand(program: Command): void {
  program
    .command('view')
    .description('the session viewer: a local web app over the stored sessions, on 127.0.0.1')
    .option('--port <n>', 'port (default: any free one)', port)
    .option('--no-open', 'do not open a browser; the URL is printed')
    .option(
      '--token <token>',
      'the credential (default $AMPLIFIER_VIEW_TOKEN, else a new random one per start)',
    )
    .action(
      action(async (flags: { port?: number; open?: boolean; token?: string }) =>
        (await import('../view.js')).viewCommand({
          ...(flags.port !== undefined && { port: flags.port }),
          ...(flags.token !== undefined && { token: flags.token }),
          open: flags.open ?? true,
        }),
      ),
    );
}
