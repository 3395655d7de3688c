/**
 * `amplifier modules list` and `amplifier module validate`.
 */
import { MODULE_TYPES } from '@amplifier/core';
import { type Command, Option } from 'commander';
import { listModules, validateCommand } from '../modules.js';
import { resolveCwd } from '../run.js';
import { action, display } from './action.js';
import { type Common, common } from './options.js';

/** Adds `modules list` and `module validate`. */
export function defineModuleCommands(program: Command): void {
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
}
