/**
 * A worker: the Restate endpoint (HTTP/2, cleartext) serving the session
 * object, on a port of the app's choice. Run as many as you like behind one
 * address (a load balancer); Restate sends each invocation to that address.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { ATTEMPT_HEADER, connectionClosed, newAttemptId } from './attempts.js';
import { restate } from './restate.js';
import { type SessionObjectOptions, sessionObject } from './session-object.js';

export interface WorkerOptions extends SessionObjectOptions {
  /** Port to listen on (default 0: a free one). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1; `0.0.0.0` behind a load balancer). */
  host?: string;
  /**
   * Restate's request identity public keys (`publickeyv1_...`): with them the
   * worker accepts only requests signed by your Restate server. Set them
   * whenever the worker's port is reachable by anything else.
   */
  identityKeys?: string[];
  /**
   * Where the Restate SDK's own log lines go (`level`: trace, debug, info,
   * warn, error). Default: the SDK's console logger, which writes to stdout;
   * an app whose stdout is data (JSON) passes its own.
   */
  log?: (level: string, text: string) => void;
}

export interface Worker {
  /** `http://<host>:<port>`: the deployment URL to register with Restate's admin API. */
  readonly url: string;
  readonly port: number;
  /** Stop listening and drop open streams. */
  close(): Promise<void>;
}

/** Serve the session object over HTTP/2 (the protocol Restate's bidirectional mode uses). */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const handler = restate.createEndpointHandler({
    services: [sessionObject(options)],
    ...(options.identityKeys === undefined ? {} : { identityKeys: options.identityKeys }),
    ...(options.log === undefined
      ? {}
      : {
          logger: (meta: { level: string }, message?: unknown, ...rest: unknown[]) =>
            options.log?.(meta.level, [message, ...rest].map((part) => String(part)).join(' ')),
        }),
  });
  // Tag each attempt, and end it when Restate drops the stream before the response is done.
  const server = http2.createServer((request, response) => {
    const id = newAttemptId();
    request.headers[ATTEMPT_HEADER] = id;
    request.stream.once('close', () => connectionClosed(id));
    handler(request, response);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
