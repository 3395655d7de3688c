/**
 * `amplifier serve --durable`: sessions as durable Restate virtual objects.
 */
import { type Command, Option } from 'commander';
import { CliError, EXIT_USAGE } from '../errors.js';
import { PROVIDERS } from '../plan.js';
import { resolveCwd } from '../run.js';
import { action, display } from './action.js';
import { type Common, common, port } from './options.js';

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
  token?: string;
  allowHost?: string[];
  allowOrigin?: string[];
  restateIdentityKey?: string[];
};

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Adds `serve`. */
export function defineServeCommand(program: Command): void {
  common(
    program
      .command('serve')
      .description(
        'serve sessions as durable Restate virtual objects (--durable): a turn survives a crashed worker',
      ),
  )
    .option('--durable', 'durable sessions on Restate (the one mode so far)')
    .option('--plan <file>', 'a mount plan (default: the built-in one)')
    .addOption(new Option('-p, --provider <name>', 'model provider').choices(Object.keys(PROVIDERS)))
    .option('-m, --model <model>', 'model id for the provider')
    .option(
      '--port <n>',
      "the front's port, where turns are sent (existing cluster: the worker's; default: a free one)",
      port,
    )
    .option(
      '--host <address>',
      'address the front binds (existing cluster: the worker; default 127.0.0.1; off loopback needs --token)',
    )
    .option(
      '--token <token>',
      'bearer token the front requires (default $AMPLIFIER_DURABLE_TOKEN, else a new random one per start)',
    )
    .option(
      '--allow-host <host>',
      'a Host name the front accepts besides loopback ones (repeatable)',
      collect,
    )
    .option(
      '--allow-origin <origin>',
      'a browser Origin the front accepts besides its own (repeatable)',
      collect,
    )
    .option(
      '--restate-identity-key <key>',
      'existing cluster: its request identity public key (publickeyv1_...); the worker takes only calls it signed (repeatable; default $RESTATE_IDENTITY_KEYS)',
      collect,
    )
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
        const { durableServeCommand } = await import('../durable-serve.js');
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
            token: flags.token,
            allowHosts: flags.allowHost,
            allowOrigins: flags.allowOrigin,
            identityKeys: flags.restateIdentityKey,
          },
          display(flags),
        );
      }),
    );
}
