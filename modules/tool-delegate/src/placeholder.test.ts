/**
 * The ids real bundles use for sub-agents (`tool-delegate` in the foundation's
 * agents behavior, `tool-task` in older bundles) fail to load with a message
 * that says sub-agents are not available yet and what to do; nothing pretends
 * to work.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AmplifierError, ModuleLoader, silentLogger } from '@amplifier/core';
import { createTestCoordinator } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { mount, UNAVAILABLE } from './index.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

// The agents behavior's config for tool-delegate (realworld-fixtures/amplifier/behaviors/agents.yaml).
const AGENTS_BEHAVIOR_CONFIG = {
  features: {
    self_delegation: { enabled: true },
    session_resume: { enabled: true },
    context_inheritance: { enabled: true, max_turns: 10 },
    provider_selection: { enabled: true },
  },
  settings: { exclude_tools: ['tool-delegate'], exclude_hooks: [] },
};

describe('tool-delegate / tool-task placeholder', () => {
  it('the loader refuses both ids with MODULE_UNAVAILABLE and the reason', async () => {
    const loader = new ModuleLoader({
      baseDir: PACKAGE_DIR,
      searchPaths: [PACKAGE_DIR],
      logger: silentLogger,
    });
    for (const id of ['tool-delegate', 'tool-task']) {
      const error = await loader.load(id, AGENTS_BEHAVIOR_CONFIG, { type: 'tool' }).catch((e: unknown) => e);
      expect(AmplifierError.is(error, 'MODULE_UNAVAILABLE')).toBe(true);
      expect((error as Error).message).toContain('sub-agents are not available yet');
      expect((error as Error).message).toContain("Remove the tool from the bundle's tools");
    }
    const [info] = await loader.discover();
    expect(info).toMatchObject({
      id: 'tool-delegate',
      aliases: [{ id: 'tool-task' }],
      unavailable: UNAVAILABLE,
    });
  });

  it("mount refuses too (an app importing it directly), and the reason matches the manifest's", async () => {
    const manifest = JSON.parse(readFileSync(`${PACKAGE_DIR}/package.json`, 'utf8')).amplifier;
    expect(manifest.unavailable).toBe(UNAVAILABLE);
    const coordinator = createTestCoordinator({ bare: true });
    await expect(mount(coordinator, AGENTS_BEHAVIOR_CONFIG)).rejects.toThrow(`tool-delegate: ${UNAVAILABLE}`);
    expect(coordinator.get('tools').size).toBe(0);
  });
});
