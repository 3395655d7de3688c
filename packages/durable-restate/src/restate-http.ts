/**
 * Calls to a Restate server's HTTP APIs over TCP (`http://host:port`) or over
 * its unix sockets (`http+unix://<percent-encoded socket path>`, the form
 * `unixSocketUrl` makes): a local server in unix listen mode has no TCP port
 * at all, so its admin API (with SQL `/query`) is reachable only by the user
 * who owns its data directory.
 */
import { Agent, fetch as undiciFetch } from 'undici';

const UNIX_URL = /^http\+unix:\/\/([^/]+)(\/.*)?$/;

/** The base URL of a unix socket: `http+unix://%2Fpath%2Fto%2Fadmin.sock`. */
export function unixSocketUrl(socketPath: string): string {
  return `http+unix://${encodeURIComponent(socketPath)}`;
}

/** The socket path of a `http+unix://` URL, undefined for any other URL. */
export function socketPathOf(url: string): string | undefined {
  const match = UNIX_URL.exec(url);
  return match === null ? undefined : decodeURIComponent(match[1]!);
}

const agents = new Map<string, Agent>();

function agentFor(socketPath: string): Agent {
  let agent = agents.get(socketPath);
  if (agent === undefined) {
    agent = new Agent({ connect: { socketPath } });
    agents.set(socketPath, agent);
  }
  return agent;
}

/** The subset of fetch's options these calls use. */
export interface RestateRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** `fetch`, also for `http+unix://` URLs (sent as `http://localhost/<path>` over the socket). */
export async function restateFetch(url: string, init: RestateRequestInit = {}): Promise<Response> {
  const match = UNIX_URL.exec(url);
  if (match === null) return fetch(url, init);
  const socketPath = decodeURIComponent(match[1]!);
  const response = await undiciFetch(`http://localhost${match[2] ?? '/'}`, {
    ...init,
    dispatcher: agentFor(socketPath),
  });
  return response as unknown as Response;
}
