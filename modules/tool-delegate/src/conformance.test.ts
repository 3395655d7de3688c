import { fileURLToPath } from 'node:url';
import { ModuleLoader, silentLogger } from '@amplifier/core';
import { createTestCoordinator, toolConformance } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { mount } from './index.js';

toolConformance({ mount, tools: ['delegate'] });

describe('the module ids', () => {
  it("loads by its id and by the alias tool-task, with the foundation agents behavior's config", async () => {
    const packageDir = fileURLToPath(new URL('..', import.meta.url));
    const loader = new ModuleLoader({ baseDir: packageDir, searchPaths: [packageDir], logger: silentLogger });
    const config = {
      features: {
        self_delegation: { enabled: true },
        session_resume: { enabled: true },
        context_inheritance: { enabled: true, max_turns: 10 },
        provider_selection: { enabled: true },
      },
      settings: { exclude_tools: ['tool-delegate'], exclude_hooks: [] },
    };
    for (const id of ['tool-delegate', 'tool-task']) {
      const loaded = await loader.load(id, config, { type: 'tool' });
      const coordinator = createTestCoordinator({ bare: true });
      await loaded.mount(coordinator);
      expect(coordinator.get('tools', 'delegate')?.name).toBe('delegate');
    }
  });
});
