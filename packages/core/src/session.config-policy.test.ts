import { describe, expect, it } from 'vitest';
import { makeSession } from './__fixtures__/sessions.js';
import type { Coordinator } from './coordinator.js';
import { ConfigRefusedError } from './errors.js';
import type { MountPlan } from './mount-plan.js';

/**
 * A tool module that reads its config the way `@amplifier/schema`'s
 * `readModuleConfig` does: an unknown key warned about, a misspelt safety key refused.
 */
const strictTool = {
  mount(coordinator: Coordinator, config: Record<string, unknown>) {
    if (Object.hasOwn(config, 'denied_path')) {
      throw new ConfigRefusedError(
        'tool-strict',
        ['denied_path'],
        "tool-strict: config refused:\n  - 'denied_path' is refused: it looks like a misspelt 'denied_paths'",
      );
    }
    for (const key of Object.keys(config)) {
      if (key !== 'denied_paths')
        coordinator.logger.warn(`tool-strict: unknown config key '${key}' is ignored`);
    }
  },
};

function plan(config: Record<string, unknown>): MountPlan {
  return {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [{ module: 'provider-mock' }],
    tools: [{ module: 'tool-strict', config }],
    extras: { x: 1 },
  } as MountPlan;
}

describe('the config policy in a session', () => {
  it("logs the plan validator's warnings once, and the module's unknown keys once", async () => {
    const { session, logger } = makeSession(plan({ colour: 'red' }), {
      extra: { 'tool-strict': strictTool },
    });
    await session.initialize();
    expect(session.failures).toEqual([]);
    expect(logger.lines.filter((l) => l.startsWith('warn:'))).toEqual([
      'warn: mount plan: extras is not a known section (ignored)',
      "warn: tool-strict: unknown config key 'colour' is ignored",
    ]);
    await session.cleanup();
  });

  it('a refused key stops the session even for a module that is not required', async () => {
    const { session } = makeSession(plan({ denied_path: ['/'] }), { extra: { 'tool-strict': strictTool } });
    await expect(session.initialize()).rejects.toThrow(
      /tool 'tool-strict' is required \(it refused its config for safety\)[\s\S]*'denied_path' is refused: it looks like a misspelt 'denied_paths'/,
    );
  });
});
