/**
 * `sandbox_policy.run_as`: when the kernel runs as root, start bubblewrap as
 * an unprivileged host user (`setpriv --reuid --regid --clear-groups`), so
 * that permission checks inside see that user. A user namespace with no
 * capabilities renames uid 0, it does not change it: without this, a
 * confined command started by root still reads root's 0600 files that no
 * mask covers.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A host user a sandbox runs as. */
export interface HostUser {
  name: string;
  uid: number;
  gid: number;
}

/** Where `setpriv` (util-linux) is looked for. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];

/**
 * The user `value` names (a name, or a uid) from `/etc/passwd`; throws a
 * clear error when there is none, or when it is root.
 */
export function resolveRunAs(value: string | number, passwd = '/etc/passwd'): HostUser {
  let text = '';
  try {
    text = fs.readFileSync(passwd, 'utf8');
  } catch {
    // read below as "no such user"
  }
  for (const line of text.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === undefined || uid === undefined || gid === undefined) continue;
    if (name === String(value) || (typeof value === 'number' && Number(uid) === value)) {
      if (Number(uid) === 0) {
        throw new Error(
          `sandbox_policy.run_as: '${value}' is root (uid 0); name an unprivileged user (useradd --system amplifier-sandbox), or remove run_as`,
        );
      }
      return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  throw new Error(
    `sandbox_policy.run_as: no user '${value}' in ${passwd}; create it (useradd --system --user-group ${typeof value === 'string' ? value : 'amplifier-sandbox'}) or remove run_as`,
  );
}

/** `setpriv` and its arguments that run the rest of the command line as `user`, or undefined without setpriv. */
export function runAsPrefix(user: HostUser): string[] | undefined {
  const setpriv = SETPRIV.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (setpriv === undefined) return undefined;
  return [setpriv, `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--'];
}

/** Whether `user` (its uid and primary group, no others) can search every folder down to `target`. */
export function canReach(target: string, user: HostUser): boolean {
  let dir = path.dirname(path.resolve(target));
  for (;;) {
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (stat === undefined) return false;
    const bit = stat.uid === user.uid ? 0o100 : stat.gid === user.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) return false;
    const parent = path.dirname(dir);
    if (parent === dir) return true;
    dir = parent;
  }
}
