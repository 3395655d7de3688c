/**
 * A bundle's `hooks-streaming-ui` (the foundation's streaming-ui behavior)
 * loads through the real loader and mounts nothing: rendering is the app's.
 */
import { fileURLToPath } from 'node:url';
import { type Logger, ModuleLoader, silentLogger } from '@amplifier/core';
import { createTestCoordinator } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

// realworld-fixtures/amplifier/behaviors/streaming-ui.yaml
const BEHAVIOR_CONFIG = {
  ui: { show_thinking_stream: true, show_tool_lines: 5, show_token_usage: true, stream_tokens: true },
};

async function mountWith(config: Record<string, unknown>) {
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (m) => warnings.push(m) };
  const loader = new ModuleLoader({ baseDir: PACKAGE_DIR, searchPaths: [PACKAGE_DIR], logger: silentLogger });
  const loaded = await loader.load('hooks-streaming-ui', config, { type: 'hook' });
  const coordinator = createTestCoordinator({ bare: true, logger });
  const cleanup = await loaded.mount(coordinator);
  return { coordinator, cleanup, warnings };
}

describe('hooks-streaming-ui', () => {
  it("accepts the streaming-ui behavior's config and registers no handler and mounts nothing", async () => {
    const { coordinator, cleanup, warnings } = await mountWith(BEHAVIOR_CONFIG);
    expect(cleanup).toBeUndefined();
    expect(coordinator.hooks.listHandlers()).toEqual({});
    expect(coordinator.mountHistory).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('warns once per unknown key, and for a ui that is not a mapping', async () => {
    const { warnings } = await mountWith({ ui: true, theme: 'dark' });
    expect(warnings).toEqual([
      "hooks-streaming-ui: unknown config key 'theme' is ignored",
      "hooks-streaming-ui: config key 'ui' should be a mapping of display settings; ignored",
    ]);
  });
});
