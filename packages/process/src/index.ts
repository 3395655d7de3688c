/**
 * @amplifier/process: child processes that cancellation really reaches,
 * and the environment they get, for modules that run commands (tool-bash,
 * tool-agentpm, MCP stdio servers).
 *
 * - `runInGroup(command, args, options)` runs a command to the end in its own
 *   process group: stdin from `input` (then closed) or /dev/null, stdout and
 *   stderr captured head + tail with bounded memory, a deadline, an abort
 *   signal and an optional output limit that kill the whole group (SIGTERM,
 *   `graceMs`, SIGKILL, then waits until the group is gone); processes left in
 *   the group after the command exits are killed too (`strays`), and a
 *   leftover holding the pipes never makes the call hang.
 * - `spawnInGroup(command, args, options)` only starts one (for background
 *   jobs): its `ProcessGroup` and a promise of its exit status.
 * - `ProcessGroup`: `alive()` (on Linux zombies nobody reaps do not count),
 *   `signal()`, `kill({ graceMs })`, `release()`; every group not yet
 *   released gets SIGKILL when the host process exits. With
 *   `followEscapees`, descendants that left the group with `setsid` while
 *   their parent was alive are found through `/proc` and killed with it.
 * - `BoundedCapture`: the first and last bytes of a stream and its total.
 * - `childEnvironment(host, policy)`: a child's environment from the host's,
 *   secret-named variables (core's `isSecretKey`) left out unless passed by
 *   name.
 *
 * - `Sandbox` (sandbox.ts): one per mount, from a `SandboxPolicy` (config
 *   keys `sandbox` and `sandbox_policy`, `SANDBOX_CONFIG_PROPERTIES` and
 *   `SANDBOX_SAFETY_KEYS` to merge into a module's schema): pass
 *   `{ sandbox, workspace }` as `runInGroup`/`spawnInGroup`'s `sandbox` and the
 *   command runs under bubblewrap (or unconfined but marked, and its escaped
 *   descendants killed at call end; `sandbox.cleanup()` at unmount). Confined
 *   commands hold whoever runs the kernel: a user namespace with no
 *   capabilities, socket folders and root-only secrets masked, a seccomp
 *   filter refusing unix sockets with the network off, optionally run as
 *   another user (`sandbox_policy.run_as`).
 *
 * POSIX only (process groups): `requireProcessGroups(moduleId)` at the top of
 * a module's `mount` refuses Windows with a clear error. Linux adds `/proc`
 * (zombies, escapees).
 */
export type { CapturedBytes, CaptureLimits } from './capture.js';
export { BoundedCapture } from './capture.js';
export type { ChildEnv, ChildEnvPolicy } from './env.js';
export { childEnvironment, matchesEnvPattern } from './env.js';
export type { KillGroupOptions, ProcessGroupOptions } from './group.js';
export { ProcessGroup } from './group.js';
export { ROOT_ONLY_SECRETS, SOCKET_DIRECTORIES } from './masks.js';
export type { PidsLimitKind } from './pids-limit.js';
export { requireProcessGroups } from './platform.js';
export { CALL_MARKER, findMarked, killMarked, SESSION_MARKER } from './reaper.js';
export type {
  ExitStatus,
  GroupChild,
  RunInGroupOptions,
  RunInGroupOutcome,
  RunInGroupResult,
  SandboxedRun,
  SpawnInGroupOptions,
} from './run.js';
export { runInGroup, spawnInGroup } from './run.js';
export type { HostUser } from './run-as.js';
export type {
  LaunchedCommand,
  PreparedCommand,
  SandboxOptions,
  SandboxStatus,
  SandboxSupport,
  SetupOptions,
} from './sandbox.js';
export {
  bwrapArguments,
  bwrapSetup,
  CONFINED_UNSET,
  INSTALL_HINT,
  PROCESS_ERRORS,
  SANDBOX_STATUS_CHANNEL,
  Sandbox,
  SandboxUnavailableError,
  sandboxSupport,
} from './sandbox.js';
export type { SandboxMode, SandboxPolicy } from './sandbox-policy.js';
export {
  DEFAULT_HIDDEN,
  SANDBOX_CONFIG_PROPERTIES,
  SANDBOX_DEFAULTS,
  SANDBOX_SAFETY_KEYS,
  sandboxPolicyFrom,
} from './sandbox-policy.js';
export { SECCOMP_FD, unixSocketFilter } from './seccomp.js';
export type { ServiceProcess, StartServiceOptions, StopServiceOptions } from './service.js';
export { startService } from './service.js';
