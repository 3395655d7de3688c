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
    .action(
      action(async (flags: { port?: number; open?: boolean }) =>
        (await import('../view.js')).viewCommand({
          ...(flags.port !== undefined && { port: flags.port }),
          open: flags.open ?? true,
        }),
      ),
    );
}
