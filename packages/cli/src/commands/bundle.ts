/**
 * `amplifier bundle list|show`: Amplifier bundles.
 */
import type { Command } from 'commander';
import { resolveCwd } from '../run.js';
import { action, display } from './action.js';
import { type Common, collect, common } from './options.js';

/** Adds `bundle` and its subcommands. */
export function defineBundleCommands(program: Command): void {
  const bundle = program
    .command('bundle')
    .description(
      'Amplifier bundles: named ones (user, shipped, trusted project, well-known) and their composed plans',
    );
  common(bundle.command('list').description('bundles found by name, first hit wins')).action(
    action(async (flags: Common) => {
      // Loaded on use: a run without bundles never loads the bundle kit.
      const { listBundles } = await import('../bundles.js');
      const { readOnlyTrust } = await import('../workspace-trust.js');
      const cwd = resolveCwd(flags.cwd);
      const out = display(flags);
      return listBundles({ cwd, json: flags.json ?? false, ...readOnlyTrust(cwd, out) }, out, process.stdout);
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
      action(async (ref: string, flags: Common & { source?: string[]; instructions?: boolean }) => {
        const { readOnlyTrust } = await import('../workspace-trust.js');
        const cwd = resolveCwd(flags.cwd);
        const out = display(flags);
        return (await import('../bundles.js')).showBundle(
          ref,
          {
            cwd,
            json: flags.json ?? false,
            sources: flags.source,
            instructions: flags.instructions ?? false,
            ...readOnlyTrust(cwd, out),
          },
          out,
          process.stdout,
        );
      }),
    );
}
