/** Restate's admin API, the two calls an app needs: register a worker, cancel a turn. */
import { DurableError } from './durable-error.js';
import { restateFetch } from './restate-http.js';

/**
 * Register (or re-register: `force`) the worker at `workerUrl` as a
 * deployment, so Restate discovers the session object and routes turns to it.
 * Behind a load balancer, register the balancer's URL once.
 */
export async function registerDeployment(adminUrl: string, workerUrl: string): Promise<void> {
  let response: Response;
  try {
    response = await restateFetch(`${trim(adminUrl)}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri: workerUrl, force: true }),
    });
  } catch (error) {
    throw new DurableError(
      'RESTATE_ADMIN_UNREACHABLE',
      `Could not reach Restate's admin API at ${adminUrl} (${(error as Error).message}): start the server, or pass the right --restate-admin-url`,
    );
  }
  if (!response.ok) {
    throw new DurableError(
      'RESTATE_REGISTRATION_FAILED',
      `Restate refused the worker at ${workerUrl} (HTTP ${response.status}: ${await response.text()}); the admin API must be able to reach that URL`,
    );
  }
  await response.arrayBuffer();
}

/**
 * Cancel an invocation (a running or queued turn): Restate tells the
 * handler, whose turn is aborted, which aborts the running tool's signal.
 */
export async function cancelInvocation(adminUrl: string, invocationId: string): Promise<void> {
  const response = await restateFetch(
    `${trim(adminUrl)}/invocations/${encodeURIComponent(invocationId)}/cancel`,
    {
      method: 'PATCH',
    },
  );
  if (!response.ok && response.status !== 404) {
    throw new DurableError(
      'RESTATE_CANCEL_FAILED',
      `Restate could not cancel ${invocationId} (HTTP ${response.status}: ${await response.text()})`,
    );
  }
  await response.arrayBuffer().catch(() => {});
}

export function trim(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

/** Where an invocation stands, from Restate's `sys_invocation` table. */
export interface InvocationStatus {
  /** Restate's status: `pending`, `scheduled`, `ready`, `running`, `backing-off`, `paused`, `suspended`, `completed`. */
  status: string;
  retryCount: number;
  /** The last attempt's failure (`code` 570: the replay took another path than the journal; null when the message has none). */
  lastFailure?: { code: number | null; message: string };
  /** A sentence for people when something is wrong (a replay violation); undefined otherwise. */
  problem?: string;
}

/** Restate's error code for a replay that took another path than its journal. */
export const JOURNAL_MISMATCH = 570;

/** Look an invocation up (undefined when Restate does not know it). */
export async function invocationStatus(
  adminUrl: string,
  invocationId: string,
): Promise<InvocationStatus | undefined> {
  if (!/^inv_[A-Za-z0-9]+$/.test(invocationId)) {
    throw new DurableError('TURN_FAILED', `'${invocationId}' is not a Restate invocation id (inv_...)`);
  }
  const response = await restateFetch(`${trim(adminUrl)}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      query: `SELECT status, retry_count, last_failure, last_failure_error_code FROM sys_invocation WHERE id = '${invocationId}'`,
    }),
  });
  if (!response.ok) {
    throw new DurableError(
      'RESTATE_ADMIN_UNREACHABLE',
      `Restate's admin API at ${adminUrl} refused the query (HTTP ${response.status}: ${await response.text()})`,
    );
  }
  const { rows } = (await response.json()) as { rows: Record<string, unknown>[] };
  const row = rows[0];
  if (row === undefined) return undefined;
  const status: InvocationStatus = { status: String(row.status), retryCount: Number(row.retry_count ?? 0) };
  if (typeof row.last_failure === 'string' && row.last_failure !== '') {
    // The code column holds Restate's own codes (RT...); the HTTP-like code leads the message: "[570 Journal mismatch] ...".
    const leading = /^\[(\d{3}) /.exec(row.last_failure)?.[1];
    const code = leading === undefined ? null : Number(leading);
    status.lastFailure = { code, message: row.last_failure };
    if (code === JOURNAL_MISMATCH) {
      status.problem = `Deterministic replay violation: replaying turn ${invocationId}, the worker took another path than the journal records (${firstLine(row.last_failure)}). Something outside the journal (a random value, the clock, the mounted tools or the config) changed the turn's control flow. Deploy workers that agree with the journal and Restate's retry resumes the turn, or cancel it.`;
    }
  }
  return status;
}

function firstLine(text: string): string {
  const diff = /name: .*/.exec(text)?.[0];
  return diff ?? text.split('\n')[0] ?? text;
}
