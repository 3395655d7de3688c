/** The platform check of modules that run commands in process groups, and Node's process API on first use. */
import { AmplifierError } from '@amplifier/core';

/**
 * For a module's `mount`: on Windows, which has no process groups, throw
 * `MOUNT_FAILED` saying `<moduleId> needs a POSIX system (process groups)`
 * and to run the kernel in WSL; elsewhere do nothing.
 */
export function requireProcessGroups(moduleId: string): void {
  if (process.platform !== 'win32') return;
  throw new AmplifierError(
    'MOUNT_FAILED',
    `${moduleId} needs a POSIX system (process groups); Windows is not supported: run the kernel in WSL`,
  );
}

/**
 * `node:child_process`, loaded when the first command starts: it brings `net`, `dgram` and the
 * stream machinery with it (7-9 ms over a bare `node` on Node 24, loaded alone), which a session
 * that runs no command never needs.
 */
export function childProcess(): typeof import('node:child_process') {
  return process.getBuiltinModule('node:child_process');
}
