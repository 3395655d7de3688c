/**
 * @amplifier/hooks-streaming-ui (module id `hooks-streaming-ui`): the id real
 * Amplifier bundles use for their console renderer of thinking blocks, tool
 * lines and token usage. Here rendering is the app's job (the `amplifier`
 * CLI renders the providers' `llm:stream_*` events, tool calls and usage
 * itself; a library has no console), so this module accepts the reference's
 * config and mounts nothing.
 */
import { type Coordinator, ownConfig } from '@amplifier/core';

/** The reference's top-level key; its `ui` settings are accepted and not used. */
const KNOWN_KEYS: ReadonlySet<string> = new Set(['ui']);

/** Mounts nothing; warns once per unknown top-level key, and when `ui` is not a mapping. */
export async function mount(coordinator: Coordinator, raw: Record<string, unknown> = {}): Promise<void> {
  const config = ownConfig(raw, 'hooks-streaming-ui');
  for (const key of Object.keys(config)) {
    if (!KNOWN_KEYS.has(key))
      coordinator.logger.warn(`hooks-streaming-ui: unknown config key '${key}' is ignored`);
  }
  const ui = config.ui;
  if (ui !== undefined && (typeof ui !== 'object' || ui === null || Array.isArray(ui))) {
    coordinator.logger.warn(
      `hooks-streaming-ui: config key 'ui' should be a mapping of display settings; ignored`,
    );
  }
}
