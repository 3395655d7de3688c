/** Restate's admin API, the two calls an app needs: register a worker, cancel a turn. */
import { DurableError } from './durable-error.js';

/**
 * Register (or re-register: `force`) the worker at `workerUrl` as a
 * deployment, so Restate discovers the session object and routes turns to it.
 * Behind a load balancer, register the balancer's URL once.
 */
export async function registerDeployment(adminUrl: string, workerUrl: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${trim(adminUrl)}/deployments`, {
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
  const response = await fetch(`${trim(adminUrl)}/invocations/${encodeURIComponent(invocationId)}/cancel`, {
    method: 'PATCH',
  });
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
