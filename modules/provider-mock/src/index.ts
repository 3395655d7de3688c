/**
 * @amplifier/provider-mock: a scripted LLM provider for tests and offline
 * runs. It replays a script (text, tool calls, thinking, usage, errors,
 * delays), answers through a function in code, or, with nothing configured,
 * answers every request with a short fixed text.
 */
import { type Coordinator, OBSERVABILITY_EVENTS_CHANNEL } from '@amplifier/core';
import { readModuleConfig } from '@amplifier/schema';
import { type MockProviderOptions, type ProviderMockConfig, ScriptedProvider } from './provider.js';
import { assertConfig, CONFIG_SCHEMA, loadScriptFile } from './script.js';

export type {
  MockProviderOptions,
  ProviderMockConfig,
  RespondFunction,
} from './provider.js';
export { DEFAULT_TEXT, ScriptedProvider } from './provider.js';
export type { ScriptError, ScriptStep, ScriptStepObject, ScriptToolCall } from './script.js';
export { CONFIG_SCHEMA, checkConfig, loadScriptFile, SCRIPT_STEP_SCHEMA, stepResponse } from './script.js';

/** The token-streaming events the mock emits beyond the canonical set (declared on `observability.events`). */
export const EXTRA_EVENTS: readonly string[] = [
  'llm:stream_block_start',
  'llm:stream_block_delta',
  'llm:stream_block_end',
  'llm:stream_aborted',
];

/** A provider built in code (for tests and apps); not mounted. Same options as the config, plus `respond`. */
export function createMockProvider(options: MockProviderOptions = {}): ScriptedProvider {
  return new ScriptedProvider(options);
}

/**
 * Mount a ScriptedProvider under the name `mock`. `script_file` is read now,
 * relative to the `session.working_dir` capability (or the current directory);
 * a bad script fails the mount with every problem listed by path
 * (`script[2].tool_calls[0].name must be string`). Config is read by core's
 * policy (`readModuleConfig`): unknown keys, in the script too (an own
 * `__proto__` key as well), are warned about once and ignored; only own
 * properties are read.
 * The stream events (`EXTRA_EVENTS`) are declared on `observability.events`.
 */
export async function mount(coordinator: Coordinator, raw: Record<string, unknown> = {}): Promise<void> {
  const logger = coordinator.logger;
  const config = readModuleConfig(raw, { module: 'provider-mock', schema: CONFIG_SCHEMA, logger });
  assertConfig(config);
  const { script_file, ...rest } = config as ProviderMockConfig;
  let script = rest.script;
  if (script_file !== undefined) {
    const workingDir = coordinator.getCapability<string>('session.working_dir');
    script = await loadScriptFile(
      script_file,
      typeof workingDir === 'string' ? workingDir : process.cwd(),
      logger,
    );
  }
  const provider = new ScriptedProvider({
    ...rest,
    ...(script !== undefined && { script }),
    hooks: coordinator.hooks,
  });
  coordinator.mount('providers', provider, { name: provider.name });
  coordinator.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, 'provider-mock', () => [...EXTRA_EVENTS]);
}
