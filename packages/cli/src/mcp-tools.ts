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
import { createLoader } from './modules.js';
import type { ResolvedPlan } from './plan.js';
import { SessionStore } from './sessions.js';

/** Open the session whose tools are served; every tool and hook of the plan must load. */
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
  session.coordinator.registerCapability(
    'session.directory',
    path.join(new SessionStore().projectDir(cwd), session.sessionId),
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
    throw error;
  }
  return session;
}
