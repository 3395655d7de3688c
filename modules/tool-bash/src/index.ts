/**
 * @amplifier/tool-bash: the `bash` tool (module id `tool-bash`) with bounded,
 * killable commands, safety profiles and tracked background jobs
 * (`bash_output`, `bash_kill`).
 */

// The shell lexer lives in the process kit (`@amplifier/process/shell`); re-exported here for compatibility.
export type { ShellCommand, ShellRedirect, ShellWord, SplitOptions } from '@amplifier/process/shell';
export { commandLine, fullCommandText, programName, splitShellCommands } from '@amplifier/process/shell';
export type { BashConfig, EnvPolicy } from './config.js';
export { commandEnv, commandEnvironment, DEFAULT_ENV_ALLOWLIST, parseConfig } from './config.js';
export type { EffectReport, Finding } from './effects.js';
export { commandEffects } from './effects.js';
export { mount } from './mount.js';
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
