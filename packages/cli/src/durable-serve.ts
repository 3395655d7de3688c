/**
 * `amplifier serve --durable`: serve the plan's sessions as durable Restate
 * virtual objects. Without `--restate-admin-url` / `--restate-ingress-url`
 * (or RESTATE_ADMIN_URL / RESTATE_INGRESS_URL), it starts a local
 * single-node Restate server from the npm binary on unix sockets only, in a
 * 0700 data dir (its admin API and `/query` have no TCP port), signing its
 * calls with a key made at start that the worker (on 127.0.0.1) requires;
 * the ingress is reachable only through a gated front on `--host:--port`
 * that needs the token printed at start. Against an existing cluster it
 * starts the worker on `--host:--port` and registers it. Stops on SIGINT and
 * SIGTERM: the front, the worker, then the local server (by its PID). The
 * durable package is imported only here, when the command runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AmplifierSession, type Logger } from '@amplifier/core';
import {
  ensurePrivateDir,
  isLoopbackAddress,
  resolveServiceToken,
  ServiceSetupError,
  writeRuntimeFile,
} from '@amplifier/server';
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
  /**
   * Local server: the front's port (default: a free one) and interface
   * (default 127.0.0.1). Existing cluster: the worker's.
   */
  port?: number | undefined;
  host?: string | undefined;
  /** The front's token (`--token`; default $AMPLIFIER_DURABLE_TOKEN, else new per start; required off loopback). */
  token?: string | undefined;
  /** Host names and browser origins the front accepts besides its own. */
  allowHosts?: string[] | undefined;
  allowOrigins?: string[] | undefined;
  /** Existing cluster: the request identity public keys (`publickeyv1_...`) the worker requires; needed off loopback. */
  identityKeys?: string[] | undefined;
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

/** The environment variable that may hold the durable front's token. */
export const DURABLE_TOKEN_ENV = 'AMPLIFIER_DURABLE_TOKEN';

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
  const local = adminUrl === undefined;
  const host = options.host ?? '127.0.0.1';
  const identityKeys =
    options.identityKeys ??
    (env.RESTATE_IDENTITY_KEYS
      ? env.RESTATE_IDENTITY_KEYS.split(',')
          .map((k) => k.trim())
          .filter(Boolean)
      : undefined);
  let token: string | undefined;
  try {
    if (local) {
      token = resolveServiceToken({
        service: 'amplifier serve --durable',
        host,
        flag: options.token,
        envName: DURABLE_TOKEN_ENV,
        env,
      }).token;
    }
  } catch (error) {
    if (error instanceof ServiceSetupError) throw new CliError(error.message, EXIT_USAGE);
    throw error;
  }
  if (!local && !isLoopbackAddress(host) && (identityKeys === undefined || identityKeys.length === 0)) {
    throw new CliError(
      `--host ${host} is not a loopback address: anyone who reaches the worker could run turns and tools. Give the cluster's request identity key (--restate-identity-key publickeyv1_... or RESTATE_IDENTITY_KEYS) so the worker takes only calls your Restate signed, or bind 127.0.0.1.`,
      EXIT_USAGE,
    );
  }
  if (!local && options.token !== undefined) {
    throw new CliError(
      "--token protects the local server's front; against an existing cluster, protect its ingress there (Restate's ingress belongs behind your proxy).",
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
    let ingressSocket: string | undefined;
    let adminSocket: string | undefined;
    let workerKeys = identityKeys;
    if (admin === undefined || ingress === undefined) {
      if (durable.findRestateServerBinary(env) === undefined) {
        display.problem(durable.missingServerMessage());
        return EXIT_USAGE;
      }
      const baseDir = options.restateDir ?? (await mkdtemp(path.join(os.tmpdir(), 'amplifier-restate-')));
      if (options.restateDir === undefined)
        cleanups.push(() => rm(baseDir, { recursive: true, force: true }));
      try {
        ensurePrivateDir(baseDir);
      } catch (error) {
        throw new CliError(`--restate-dir: ${(error as Error).message}`, EXIT_USAGE);
      }
      const identity = durable.createRequestIdentity(baseDir);
      const server = await durable.startLocalRestate({
        baseDir,
        listen: 'unix',
        requestIdentityKeyFile: identity.privateKeyFile,
      });
      cleanups.push(() => server.stop());
      display.debug(`restate-server pid ${server.pid}, data and sockets in ${baseDir}`);
      restatePid = server.pid;
      admin = server.adminUrl;
      ingress = server.ingressUrl;
      ingressSocket = server.ingressSocket;
      adminSocket = server.adminSocket;
      workerKeys = [identity.publicKey];
    }

    const logger: Logger = {
      debug: (m) => display.debug(m),
      info: (m) => display.debug(m),
      warn: (m) => display.warn(m),
      error: (m) => display.error(m),
    };
    const worker = await durable.startWorker({
      // Local: the worker is Restate's alone (signed calls only); the front takes --host and --port.
      port: local ? 0 : (options.port ?? 0),
      host: local ? '127.0.0.1' : host,
      ...(workerKeys !== undefined && { identityKeys: workerKeys }),
      // stdout is for the ready line (JSON with --json): the SDK's lines go to the display.
      log: (level, text) =>
        level === 'error'
          ? display.error(`restate: ${text}`)
          : level === 'warn'
            ? display.warn(`restate: ${text}`)
            : display.debug(`restate: ${text}`),
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

    let front: { url: string; port: number } | undefined;
    let runtimePath: string | undefined;
    if (ingressSocket !== undefined && token !== undefined) {
      const { startIngressFront } = await import('./durable-front.js');
      const started = await startIngressFront({
        host,
        port: options.port ?? 0,
        token,
        ingressSocket,
        allowedHosts: options.allowHosts ?? [],
        allowedOrigins: options.allowOrigins ?? [],
        log: (m) => display.debug(m),
      });
      cleanups.push(() => started.close());
      front = started;
      ingress = started.url;
      try {
        const runtime = writeRuntimeFile(
          `durable-${started.port}`,
          {
            service: 'durable',
            url: started.url,
            token,
            admin_socket: adminSocket ?? null,
            pid: process.pid,
          },
          env,
        );
        runtimePath = runtime.path;
        cleanups.push(async () => runtime.remove());
      } catch (error) {
        display.warn(`could not write the runtime file (${(error as Error).message})`);
      }
    }

    const object = durable.DEFAULT_OBJECT_NAME;
    const auth = token === undefined ? '' : ` -H 'authorization: Bearer ${token}'`;
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({
          ingress_url: ingress,
          token: token ?? null,
          admin_url: front === undefined ? admin : null,
          admin_socket: adminSocket ?? null,
          worker_url: worker.url,
          object,
          restate_pid: restatePid ?? null,
          runtime_file: runtimePath ?? null,
        })}\n`,
      );
    } else {
      const cancel =
        adminSocket === undefined
          ? `curl -X PATCH ${admin}/invocations/<invocationId>/cancel`
          : `curl --unix-socket ${adminSocket} -X PATCH http://localhost/invocations/<invocationId>/cancel`;
      process.stdout.write(
        [
          front === undefined
            ? `Durable sessions ready: worker ${worker.url}, Restate ingress ${ingress}, admin ${admin}.`
            : `Durable sessions ready on ${ingress} (token required; Restate's admin API is on ${adminSocket}, for you only).`,
          ...(token === undefined ? [] : [`Send the header: authorization: Bearer ${token}`]),
          ...(runtimePath === undefined ? [] : [`(URL and token also in ${runtimePath}, mode 0600)`]),
          'Run a turn (the idempotency key makes a re-sent request the same turn):',
          `  curl -X POST ${ingress}/${object}/my-session/turn${auth} -H 'content-type: application/json' -H 'idempotency-key: turn-1' -d '{"prompt":"hello"}'`,
          'Start it and attach later:',
          `  curl -X POST ${ingress}/${object}/my-session/turn/send${auth} -H 'content-type: application/json' -H 'idempotency-key: turn-2' -d '{"prompt":"and then?"}'`,
          `  curl ${ingress}/restate/invocation/<invocationId>/attach${auth}`,
          `Cancel a turn: ${cancel}`,
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
