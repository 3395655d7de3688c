/**
 * The module's mount entry (`"amplifier": { "entry": "./mount" }`): what the
 * loader imports. It loads the config parser, the runtime and the tool
 * definitions; the safety validator, the effect analysis and the shell lexer
 * load with the first command. The package's main export re-exports `mount`
 * with the rest of the public API.
 */
import { AmplifierError, type Cleanup, type Coordinator } from '@amplifier/core';
import { requireProcessGroups, SANDBOX_STATUS_CHANNEL, SandboxUnavailableError } from '@amplifier/process';
import { parseConfig } from './config.js';
import { BashRuntime, createBashTool, createKillTool, createOutputTool } from './tool.js';

/**
 * Mount `bash`, `bash_output` and `bash_kill`. Bad config fails with a message
 * naming the key. The secret-named host variables commands will not see are
 * logged once, with the first command (names only). The cleanup stops every running command and
 * background job (their whole process groups) and removes the job directory.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  requireProcessGroups('tool-bash');
  const settings = parseConfig(config, coordinator.logger);
  let runtime: BashRuntime;
  try {
    runtime = new BashRuntime(coordinator, settings);
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new AmplifierError('MOUNT_FAILED', error.message);
    throw error;
  }
  coordinator.registerContributor(SANDBOX_STATUS_CHANNEL, 'tool-bash', () => runtime.sandbox.status());
  for (const tool of [createBashTool(runtime), createOutputTool(runtime), createKillTool(runtime)]) {
    coordinator.mount('tools', tool, { name: tool.name });
  }
  return () => runtime.close();
}
