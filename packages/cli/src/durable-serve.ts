/**
 * `amplifier serve --durable`: serve the plan's sessions as durable Restate
 * virtual objects. Without `--restate-admin-url` / `--restate-ingress-url`
 * (or RESTATE_ADMIN_URL / RESTATE_INGRESS_URL), it starts a local
 * single-node Restate server from the npm binary on free 127.0.0.1 ports;
 * then it starts the worker (the Restate endpoint), registers it with the
 * admin API and prints where to send turns. Stops on SIGINT and SIGTERM:
 * the worker, then the local server (by its PID). The durable package is
 * imported only here, when the command runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AmplifierSession, type Logger } from '@amplifier/core';
import { CliApproval } from './approval.js';
import type { Display } from './display.js';
import { CliError, EXIT_OK, EXIT_USAGE } from './errors.js';
import { createLoader } from './modules.js';
import { resolvePlan } from './plan.js';

export interface DurableServeOptions {
  plan?: string | undefined;
  provider?: string | undefined;
  model?: string | undefined;
  cwd: string;
  json: boolean;
  /** The worker's port (default: a free one) and interface (default 127.0.0.1). */
  port?: number | undefined;
  host?: string | undefined;
  /** An existing Restate cluster instead of a local server. */
  restateAdminUrl?: string | undefined;
  restateIngressUrl?: string | undefined;
  /** Keep the local server's data here (default: a temp dir removed on exit). */
  restateDir?: string | undefined;
  /** The URL Restate reaches this worker at (default: the worker's own; behind a load balancer: the balancer's). */
  advertisedUrl?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Resolves when the server should stop (default: SIGINT or SIGTERM). */
  stop?: Promise<unknown>;
}

export async function durableServeCommand(options: DurableServeOptions, display: Display): Promise<number> {
  const env = options.env ?? process.env;
  const adminUrl = options.restateAdminUrl ?? env.RESTATE_ADMIN_URL;
  const ingressUrl = options.restateIngressUrl ?? env.RESTATE_INGRESS_URL;
  if ((adminUrl === undefined) !== (ingressUrl === undefined)) {
    throw new CliError(
      'An existing Restate cluster needs both --restate-admin-url and --restate-ingress-url (or RESTATE_ADMIN_URL and RESTATE_INGRESS_URL).',
      EXIT_USAGE,
    );
  }
  const durable = await import('@amplifier/durable-restate');
  const resolved = resolvePlan({
    planFile: options.plan,
    cwd: options.cwd,
    provider: options.provider,
    model: options.model,
    env,
  });
  for (const warning of resolved.warnings) display.warn(warning);

  const cleanups: (() => Promise<void>)[] = [];
  try {
    let admin = adminUrl;
    let ingress = ingressUrl;
    let restatePid: number | undefined;
    if (admin === undefined || ingress === undefined) {
      if (durable.findRestateServerBinary(env) === undefined) {
        display.problem(durable.missingServerMessage());
        return EXIT_USAGE;
      }
      const baseDir = options.restateDir ?? (await mkdtemp(path.join(os.tmpdir(), 'amplifier-restate-')));
      if (options.restateDir === undefined)
        cleanups.push(() => rm(baseDir, { recursive: true, force: true }));
      const server = await durable.startLocalRestate({ baseDir });
      cleanups.push(() => server.stop());
      display.debug(`restate-server pid ${server.pid}, data in ${baseDir}`);
      restatePid = server.pid;
      admin = server.adminUrl;
      ingress = server.ingressUrl;
    }

    const logger: Logger = {
      debug: (m) => display.debug(m),
      info: (m) => display.debug(m),
      warn: (m) => display.warn(m),
      error: (m) => display.error(m),
    };
    const worker = await durable.startWorker({
      port: options.port ?? 0,
      host: options.host ?? '127.0.0.1',
      createSession: ({ sessionId, isResumed }) =>
        new AmplifierSession(resolved.plan, {
          loader: createLoader(options.cwd, { logger }),
          logger,
          display,
          // Nobody is at a terminal: each approval hook's default decides.
          approval: new CliApproval({ display, interactive: false }),
          baseDir: options.cwd,
          workingDir: options.cwd,
          sessionId,
          isResumed,
        }),
    });
    cleanups.push(() => worker.close());
    await durable.registerDeployment(admin, options.advertisedUrl ?? worker.url);

    const object = durable.DEFAULT_OBJECT_NAME;
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ ingress_url: ingress, admin_url: admin, worker_url: worker.url, object, restate_pid: restatePid ?? null })}\n`,
      );
    } else {
      process.stdout.write(
        [
          `Durable sessions ready: worker ${worker.url}, Restate ingress ${ingress}, admin ${admin}.`,
          'Run a turn (the idempotency key makes a re-sent request the same turn):',
          `  curl -X POST ${ingress}/${object}/my-session/turn -H 'content-type: application/json' -H 'idempotency-key: turn-1' -d '{"prompt":"hello"}'`,
          'Start it and attach later:',
          `  curl -X POST ${ingress}/${object}/my-session/turn/send -H 'content-type: application/json' -H 'idempotency-key: turn-2' -d '{"prompt":"and then?"}'`,
          `  curl ${ingress}/restate/invocation/<invocationId>/attach`,
          `Cancel a turn: curl -X PATCH ${admin}/invocations/<invocationId>/cancel`,
          'Stop with Ctrl+C.',
          '',
        ].join('\n'),
      );
    }
    await (options.stop ?? signalled());
    return EXIT_OK;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

function signalled(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = on('SIGINT');
    const onTerm = on('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}
