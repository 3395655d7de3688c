/**
 * @amplifier/tool-bash: the `bash` tool (module id `tool-bash`) with bounded,
 * killable commands, safety profiles and tracked background jobs
 * (`bash_output`, `bash_kill`).
 */
import type { Cleanup, Coordinator } from '@amplifier/core';
import { requireProcessGroups } from '@amplifier/core/process';
import { parseConfig } from './config.js';
import { BashRuntime, createBashTool, createKillTool, createOutputTool } from './tool.js';

// The shell lexer moved to core (`@amplifier/core/shell`); re-exported here for compatibility.
export type { ShellCommand, ShellRedirect, ShellWord, SplitOptions } from '@amplifier/core/shell';
export { commandLine, fullCommandText, programName, splitShellCommands } from '@amplifier/core/shell';
export type { BashConfig, EnvPolicy } from './config.js';
export { commandEnv, DEFAULT_ENV_ALLOWLIST, parseConfig } from './config.js';
export type { CapturedBytes, FormattedOutput } from './output.js';
export { formatOutput, OutputCapture } from './output.js';
export type {
  BlockPattern,
  BlockPatternType,
  SafetyPolicy,
  SafetyProfile,
  SafetyProfileName,
  SafetyResult,
} from './safety.js';
export {
  allowMatch,
  atCommandPosition,
  denyMatch,
  PROFILE_NAMES,
  resolveProfile,
  SAFETY_PROFILES,
  validateCommand,
} from './safety.js';
export { BashRuntime } from './tool.js';

/**
 * Mount `bash`, `bash_output` and `bash_kill`. Bad config fails with a message
 * naming the key. The cleanup stops every running command and background job
 * (their whole process groups) and removes the job directory.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  requireProcessGroups('tool-bash');
  const runtime = new BashRuntime(coordinator, parseConfig(config, coordinator.logger));
  for (const tool of [createBashTool(runtime), createOutputTool(runtime), createKillTool(runtime)]) {
    coordinator.mount('tools', tool, { name: tool.name });
  }
  return () => runtime.close();
}
