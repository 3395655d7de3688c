/** The platform check of modules that run commands in process groups. */
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
