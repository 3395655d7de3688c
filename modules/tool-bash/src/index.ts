/**
 * @amplifier/tool-bash: the `bash` tool (module id `tool-bash`) with bounded,
 * killable commands, safety profiles and tracked background jobs
 * (`bash_output`, `bash_kill`).
 */
import { AmplifierError, type Cleanup, type Coordinator } from '@amplifier/core';
import { requireProcessGroups, SANDBOX_STATUS_CHANNEL, SandboxUnavailableError } from '@amplifier/process';
import { commandEnvironment, parseConfig } from './config.js';
import { BashRuntime, createBashTool, createKillTool, createOutputTool } from './tool.js';

// The shell lexer lives in the process kit (`@amplifier/process/shell`); re-exported here for compatibility.
export type { ShellCommand, ShellRedirect, ShellWord, SplitOptions } from '@amplifier/process/shell';
export { commandLine, fullCommandText, programName, splitShellCommands } from '@amplifier/process/shell';
export type { BashConfig, EnvPolicy } from './config.js';
export { commandEnv, commandEnvironment, DEFAULT_ENV_ALLOWLIST, parseConfig } from './config.js';
export type { EffectReport, Finding } from './effects.js';
export { commandEffects } from './effects.js';
export type { CapturedBytes, FormattedOutput } from './output.js';
export { formatOutput, OutputCapture } from './output.js';
export type {
  BlockPattern,
  BlockPatternType,
  EffectContext,
  EffectKind,
  SafetyPolicy,
  SafetyProfile,
  SafetyProfileName,
  SafetyResult,
} from './safety.js';
export {
  allowMatch,
  atCommandPosition,
  denyMatch,
  EFFECT_PATTERNS,
  PROFILE_NAMES,
  resolveProfile,
  SAFETY_PROFILES,
  validateCommand,
} from './safety.js';
export { BashRuntime } from './tool.js';

/**
 * Mount `bash`, `bash_output` and `bash_kill`. Bad config fails with a message
 * naming the key. The secret-named host variables commands will not see are
 * logged once (names only). The cleanup stops every running command and
 * background job (their whole process groups) and removes the job directory.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  requireProcessGroups('tool-bash');
  const settings = parseConfig(config, coordinator.logger);
  const { withheld } = commandEnvironment(settings);
  if (withheld.length > 0) {
    coordinator.logger.info(
      `tool-bash: secret-named environment variables are withheld from commands: ${withheld.join(', ')} (name one in pass_env to pass it)`,
    );
  }
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
