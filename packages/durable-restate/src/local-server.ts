/**
 * A local single-node Restate server run from the npm binary
 * (`@restatedev/restate-server`, an optional dependency: a static binary for
 * linux and macOS, x64 and arm64), on free 127.0.0.1 ports or (`listen:
 * 'unix'`) on unix sockets only, in its data directory, with its data in a
 * base directory of the caller's choice. Stopped by its PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DurableError } from './durable-error.js';
import { freePort } from './free-port.js';
import { restateFetch, unixSocketUrl } from './restate-http.js';

/** Environment variable naming a `restate-server` binary to use instead of the npm one. */
export const SERVER_BIN_ENV = 'AMPLIFIER_RESTATE_SERVER_BIN';

/**
 * The `restate-server` binary: `$AMPLIFIER_RESTATE_SERVER_BIN`, else the one
 * `@restatedev/restate-server` installed for this platform; undefined when
 * neither is there (an OS without a build, optional dependencies skipped).
 */
export function findRestateServerBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env[SERVER_BIN_ENV];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  try {
    const require = createRequire(import.meta.url);
    const launcher = require.resolve('@restatedev/restate-server/package.json');
    const platformPackage = `@restatedev/restate-server-${process.platform}-${process.arch}`;
    return createRequire(launcher).resolve(`${platformPackage}/bin/restate-server`);
  } catch {
    return undefined;
  }
}

/** Why the local server cannot start here, and what to do instead. */
export function missingServerMessage(): string {
  return [
    `No restate-server binary for ${process.platform}-${process.arch}: the optional dependency`,
    '@restatedev/restate-server was not installed (optional dependencies skipped, or no build for this OS).',
    'Install it (npm install @restatedev/restate-server, on linux or macOS), set',
    `${SERVER_BIN_ENV} to a restate-server binary, or point at an existing Restate cluster with`,
    '--restate-admin-url and --restate-ingress-url (or RESTATE_ADMIN_URL and RESTATE_INGRESS_URL).',
  ].join('\n');
}

export interface LocalRestateOptions {
  /** Where the server keeps its data (`<baseDir>/<node name>/`); reuse it to restart with the journal kept. */
  baseDir: string;
  /**
   * `tcp` (default): admin, ingress and fabric on 127.0.0.1 ports. `unix`:
   * on `<baseDir>/<node>/{admin,ingress,fabric}.sock` only, no TCP port at
   * all; keep `baseDir` private (0700) and the sockets are the user's alone.
   */
  listen?: 'tcp' | 'unix';
  /** A PKCS#8 PEM Ed25519 key (`createRequestIdentity`): the server signs its calls to workers with it. */
  requestIdentityKeyFile?: string;
  /** Ports (default: free ones; `tcp` only). */
  ingressPort?: number;
  adminPort?: number;
  fabricPort?: number;
  /** Partitions provisioned on first start (default 4: a laptop, not a cluster). */
  partitions?: number;
  /** The binary (default `findRestateServerBinary()`). */
  binary?: string;
  /** Bound on the wait for the server to answer (default 30 s). */
  readyTimeoutMs?: number;
  /** More environment for the server (`RESTATE_...` settings). */
  env?: Record<string, string>;
  /** Server output (default: dropped). */
  onOutput?: (chunk: string) => void;
}

export interface LocalRestate {
  /** `http://127.0.0.1:<port>`, or `http+unix://<socket>` in unix mode (call it with `restateFetch`). */
  readonly ingressUrl: string;
  /** Like `ingressUrl`, for the admin API. */
  readonly adminUrl: string;
  /** In unix mode: the sockets' paths. */
  readonly ingressSocket?: string;
  readonly adminSocket?: string;
  readonly baseDir: string;
  /** The running server's PID. */
  readonly pid: number;
  /** Stop it (SIGTERM, then SIGKILL after `graceMs`, default 5 s) and wait for the exit. */
  stop(graceMs?: number): Promise<void>;
  /** `kill -9` it and wait for the exit. */
  kill(): Promise<void>;
  /** Start it again with the same base dir and ports (after `stop` or `kill`). */
  restart(): Promise<void>;
}

/** Start a single-node server and resolve once its admin API and ingress answer. */
export async function startLocalRestate(options: LocalRestateOptions): Promise<LocalRestate> {
  const binary = options.binary ?? findRestateServerBinary();
  if (binary === undefined) throw new DurableError('RESTATE_SERVER_MISSING', missingServerMessage());
  const unix = options.listen === 'unix';
  const nodeDir = path.join(options.baseDir, 'amplifier');
  const ingressSocket = path.join(nodeDir, 'ingress.sock');
  const adminSocket = path.join(nodeDir, 'admin.sock');
  const ingressPort = unix ? 0 : (options.ingressPort ?? (await freePort()));
  const adminPort = unix ? 0 : (options.adminPort ?? (await freePort()));
  const fabricPort = unix ? 0 : (options.fabricPort ?? (await freePort()));
  const ingressUrl = unix ? unixSocketUrl(ingressSocket) : `http://127.0.0.1:${ingressPort}`;
  const adminUrl = unix ? unixSocketUrl(adminSocket) : `http://127.0.0.1:${adminPort}`;
  const listenEnv: Record<string, string> = unix
    ? {}
    : {
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
        RESTATE_BIND_ADDRESS: `127.0.0.1:${fabricPort}`,
        RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabricPort}/`,
      };
  if (options.requestIdentityKeyFile !== undefined) {
    listenEnv.RESTATE_WORKER__INVOKER__REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE = options.requestIdentityKeyFile;
  }
  let child: ChildProcess;
  let exited: Promise<void>;

  const launch = async (): Promise<void> => {
    child = spawn(
      binary,
      [
        '--no-logo',
        '--listen-mode',
        unix ? 'unix' : 'tcp',
        '--node-name',
        'amplifier',
        '--base-dir',
        options.baseDir,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...listenEnv,
          RESTATE_DEFAULT_NUM_PARTITIONS: String(options.partitions ?? 4),
          RESTATE_LOG_FORMAT: 'compact',
          RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
          ...options.env,
        },
      },
    );
    const output = options.onOutput ?? (() => {});
    child.stdout?.on('data', (chunk: Buffer) => output(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output(chunk.toString()));
    const current = child;
    exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    let gone = false;
    void exited.then(() => {
      gone = true;
    });
    const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
    for (;;) {
      if (gone) {
        throw new DurableError(
          'RESTATE_SERVER_FAILED',
          `restate-server exited before it was ready (base dir ${options.baseDir}); run it by hand to see why: ${binary} --base-dir ${options.baseDir}`,
        );
      }
      if ((await answers(`${adminUrl}/health`)) && (await answers(`${ingressUrl}/restate/health`))) return;
      if (Date.now() > deadline) {
        current.kill('SIGKILL');
        throw new DurableError(
          'RESTATE_SERVER_FAILED',
          `restate-server did not answer on ${adminUrl} and ${ingressUrl} within ${options.readyTimeoutMs ?? 30_000} ms`,
        );
      }
      await sleep(25);
    }
  };

  await launch();
  const handle: LocalRestate = {
    ingressUrl,
    adminUrl,
    ...(unix && { ingressSocket, adminSocket }),
    baseDir: options.baseDir,
    get pid() {
      return child.pid ?? -1;
    },
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid ?? -1, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(child.pid ?? -1, 'SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid ?? -1, 'SIGKILL');
      await exited;
    },
    async restart() {
      await handle.stop();
      await launch();
    },
  };
  return handle;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await restateFetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
