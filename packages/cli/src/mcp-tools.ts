/**
 * `amplifier mcp serve` without `--agent`: the session whose tools
 * `@amplifier/mcp-server` serves (`expose: 'tools'`), mounted from the plan
 * with its hooks (no provider: no model is involved).
 */
import path from 'node:path';
import { AmplifierSession, errorMessage, type Logger } from '@amplifier/core';
import { CliApproval } from './approval.js';
import type { Display } from './display.js';
import { CliError } from './errors.js';
import { CLI_VERSION, createLoader } from './modules.js';
import { planSummary, type ResolvedPlan } from './plan.js';
import { SessionStore } from './sessions.js';

/**
 * Open the session whose tools are served; every tool and hook of the plan
 * must load. It is recorded like a run's session (metadata written by this
 * CLI, named `mcp serve`, running until the server closes, then completed),
 * so `session list` and the viewer show what it is; a server that fails to
 * start leaves no session behind.
 */
export async function openToolSession(
  resolved: ResolvedPlan,
  cwd: string,
  display: Display,
): Promise<AmplifierSession> {
  const logger: Logger = {
    debug: (m) => display.debug(m),
    info: (m) => display.debug(m),
    warn: (m) => {
      if (!/^(provider|tool|hook) '[^']*' was not loaded: /.test(m)) display.warn(m);
    },
    error: (m) => display.error(m),
  };
  const session = new AmplifierSession(resolved.plan, {
    loader: createLoader(cwd, { logger }),
    logger,
    display,
    // No person can answer over MCP: the approval default of each hook decides.
    approval: new CliApproval({ display, interactive: false }),
    baseDir: cwd,
    workingDir: cwd,
  });
  const store = new SessionStore();
  session.coordinator.registerCapability(
    'session.directory',
    path.join(store.projectDir(cwd), session.sessionId),
  );
  try {
    await session.initialize();
    const failed = session.failures.filter((f) => f.section !== 'providers');
    if (failed.length > 0) {
      throw new CliError(
        failed
          .map((f) => `Could not load ${f.section.replace(/s$/, '')} '${f.module}': ${errorMessage(f.error)}`)
          .join('\n\n'),
      );
    }
  } catch (error) {
    await session.cleanup().catch(() => undefined);
    store.discardUnrecorded(cwd, session.sessionId);
    throw error;
  }
  const now = new Date().toISOString();
  const record = store.create({
    session_id: session.sessionId,
    created: now,
    updated: now,
    cwd,
    provider: 'none',
    model: null,
    plan: planSummary(resolved.plan),
    options: { plan_file: resolved.planFile ?? null, provider: null, model: null, max_iterations: null },
    turn_count: 0,
    status: 'running',
    name: 'mcp serve (tools)',
    pid: process.pid,
    cli_version: CLI_VERSION,
  });
  session.coordinator.registerCleanup(() => record.saveMetadata({ status: 'completed' }));
  return session;
}
