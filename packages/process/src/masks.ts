/**
 * What a confined command must not see of the host, as bubblewrap masks (an
 * empty read-only directory, or `/dev/null`, over each path that exists):
 * - the user's secrets (`DEFAULT_HIDDEN` under the home) and the policy's
 *   `hidden` paths;
 * - the directories that hold unix sockets (`/run` and `/var/run`,
 *   `$XDG_RUNTIME_DIR`, the ssh-agent's folder, `/tmp/.X11-unix`): a Docker
 *   socket, an ssh-agent, D-Bus, systemd are ways out of any sandbox;
 * - when the kernel runs as root (euid 0): what root can read that a command
 *   has no business with. A confined command keeps host uid 0 for permission
 *   checks (a user namespace with no capabilities renames ids, it does not
 *   change them), so root's 0600 files stay readable unless masked: the
 *   secrets of every home, `/etc/shadow`, `/etc/gshadow`, `/etc/sudoers*`,
 *   ssh host keys, and the like (`ROOT_ONLY_SECRETS`).
 * Each mask is also put wherever the same folder shows through another
 * mount of its filesystem (`/proc/self/mountinfo`: a bind of a parent, a
 * volume mounted twice), since a mask covers one path, not the files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_HIDDEN } from './sandbox-policy.js';

/** Directories that hold unix sockets of the host's services, masked in every confined command. */
export const SOCKET_DIRECTORIES: readonly string[] = ['/run', '/var/run', '/tmp/.X11-unix', '/tmp/.ICE-unix'];

/**
 * Files and folders only root can read that hold credentials (masked when the
 * kernel runs as root). Ssh host keys are matched by name in `/etc/ssh`.
 */
export const ROOT_ONLY_SECRETS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssl/private',
  '/etc/krb5.keytab',
  '/etc/security/opasswd',
  '/etc/NetworkManager/system-connections',
  '/etc/wireguard',
  '/etc/ipsec.secrets',
  '/etc/ppp/chap-secrets',
  '/etc/ppp/pap-secrets',
  '/var/lib/sss/secrets',
];

/** What decides a confined command's masks. */
export interface MaskOptions {
  /** The user's home (`DEFAULT_HIDDEN` is relative to it). */
  home: string;
  /** The policy's hidden paths, absolute. */
  hidden: readonly string[];
  /** Paths the command must keep (the workspace, writable paths, its directory): a mask over one of them is skipped. */
  keep: readonly string[];
  /** The environment of the host process (`XDG_RUNTIME_DIR`, `SSH_AUTH_SOCK`). */
  hostEnv: NodeJS.ProcessEnv;
  /** Mask what only root can read (default: the kernel runs as euid 0). */
  asRoot?: boolean;
  /** Whether bubblewrap can reach a path (run as another user: it cannot mask what it cannot reach, nor need to). */
  reachable?: (path: string) => boolean;
}

/** The bubblewrap arguments masking what `options` says, after the binds. */
export function maskArguments(options: MaskOptions): string[] {
  const asRoot = options.asRoot ?? process.geteuid?.() === 0;
  const homes = asRoot ? [options.home, ...homeDirectories()] : [options.home];
  const candidates: string[] = [];
  for (const home of new Set(homes)) for (const p of DEFAULT_HIDDEN) candidates.push(path.join(home, p));
  candidates.push(...options.hidden);
  if (asRoot) candidates.push(...ROOT_ONLY_SECRETS, ...sshHostKeys());
  candidates.push(...SOCKET_DIRECTORIES, ...runtimeSockets(options.hostEnv, homes));
  // Only what exists, by its real path (a stat is cheap; a failed realpath throws, which is not).
  const wanted = new Map<string, fs.Stats>();
  for (const candidate of candidates) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(candidate, { throwIfNoEntry: false });
    } catch {
      // EACCES: a folder on the way this user cannot search; bubblewrap (the same user) could not mask it, nor can the command read it
    }
    if (stat !== undefined) wanted.set(realpathOr(candidate), stat);
  }
  // The same folder mounted a second time (a bind of a parent, a volume mounted twice) shows it unmasked there.
  const table = mountTable();
  for (const [entry] of [...wanted]) {
    for (const alias of aliasesOf(entry, table)) {
      const stat = fs.statSync(alias, { throwIfNoEntry: false });
      if (stat !== undefined && !wanted.has(alias)) wanted.set(alias, stat);
    }
  }
  const keep = options.keep.map(realpathOr);
  const out: string[] = [];
  const dirs: string[] = [];
  // Shortest first: a mask inside a masked folder is gone already (and could not be made there).
  for (const [entry, stat] of [...wanted].sort(([a], [b]) => a.length - b.length)) {
    if (dirs.some((d) => entry === d || entry.startsWith(`${d}${path.sep}`))) continue;
    // Hiding the workspace itself (or a parent of it) would hide the work: skip it, the work wins.
    if (keep.some((k) => k === entry || k.startsWith(`${entry}${path.sep}`))) continue;
    if (options.reachable?.(entry) === false) continue;
    if (stat.isDirectory()) {
      dirs.push(entry);
      out.push('--tmpfs', entry, '--remount-ro', entry);
    } else {
      out.push('--ro-bind', '/dev/null', entry);
    }
  }
  return out;
}

/**
 * `/etc/resolv.conf` where it lives in a masked folder (systemd-resolved's
 * `/run/systemd/resolve/stub-resolv.conf`): bound back read-only so that DNS
 * keeps working with the network on.
 */
export function resolverArguments(masks: readonly string[]): string[] {
  const real = realpathOr('/etc/resolv.conf');
  if (real === '/etc/resolv.conf' || !fs.existsSync(real)) return [];
  const masked = masks.some((m, i) => masks[i - 1] === '--tmpfs' && real.startsWith(`${m}${path.sep}`));
  return masked ? ['--ro-bind', real, real] : [];
}

/** The socket folders the host's environment names: `$XDG_RUNTIME_DIR`, and the ssh-agent's. */
function runtimeSockets(env: NodeJS.ProcessEnv, homes: readonly string[]): string[] {
  const out: string[] = [];
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime !== undefined && path.isAbsolute(runtime) && runtime !== '/') out.push(runtime);
  const agent = env.SSH_AUTH_SOCK;
  if (agent !== undefined && path.isAbsolute(agent)) {
    const dir = path.dirname(agent);
    // Its folder, unless that is a home or a system folder: then the socket itself.
    const broad = dir === '/' || dir === '/tmp' || homes.includes(dir) || /^\/[^/]+$/.test(dir);
    out.push(broad ? agent : dir);
  }
  return out;
}

/** `/root`, the folders in `/home`, and the home of every user account in `/etc/passwd` (uid 0 or >= 1000). */
function homeDirectories(): string[] {
  const homes = new Set<string>(['/root']);
  try {
    for (const name of fs.readdirSync('/home')) homes.add(path.join('/home', name));
  } catch {
    // no /home
  }
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [, , uid, , , home] = line.split(':');
      const user = uid === '0' || Number(uid) >= 1000;
      if (user && home !== undefined && path.isAbsolute(home) && home !== '/') homes.add(home);
    }
  } catch {
    // no /etc/passwd
  }
  return [...homes];
}

/** The ssh host private keys (`/etc/ssh/ssh_host_*_key`). */
function sshHostKeys(): string[] {
  try {
    return fs
      .readdirSync('/etc/ssh')
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => path.join('/etc/ssh', name));
  } catch {
    return [];
  }
}

/** One line of `/proc/self/mountinfo`: which filesystem (`device`), which of its folders (`root`), where (`point`). */
export interface MountEntry {
  device: string;
  root: string;
  point: string;
}

/** `\040` and kin in mountinfo paths. */
function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** This process's mounts (empty where `/proc/self/mountinfo` cannot be read). */
export function mountTable(source = '/proc/self/mountinfo'): MountEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(source, 'utf8');
  } catch {
    return [];
  }
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 5) continue;
    out.push({ device: fields[2]!, root: unescapeMount(fields[3]!), point: unescapeMount(fields[4]!) });
  }
  return out;
}

function within(child: string, parent: string): boolean {
  return parent === '/' ? child.startsWith('/') : child === parent || child.startsWith(`${parent}/`);
}

/**
 * The other paths where `real` (a real path) can be reached: its folder of
 * its filesystem seen through every other mount of that filesystem whose
 * root holds it (a bind of a parent, a volume mounted twice). A mask at
 * `real` alone leaves those open.
 */
export function aliasesOf(real: string, table: readonly MountEntry[]): string[] {
  let holder: MountEntry | undefined;
  // The last mount covering the path is the one it resolves through (later mounts stack on earlier ones).
  for (const mount of table) {
    if (within(real, mount.point) && (holder === undefined || mount.point.length >= holder.point.length)) {
      holder = mount;
    }
  }
  if (holder === undefined) return [];
  const inside = path.posix.join(holder.root, path.posix.relative(holder.point, real));
  const out = new Set<string>();
  for (const mount of table) {
    if (mount === holder || mount.device !== holder.device || !within(inside, mount.root)) continue;
    const alias = path.posix.join(mount.point, path.posix.relative(mount.root, inside));
    if (alias !== real) out.add(alias);
  }
  return [...out];
}

/**
 * What in a writable folder runs or configures code outside the sandbox
 * later, without the user running the project: git's hooks and config
 * (`core.hooksPath`, `core.fsmonitor` run on the next `git status`, a shell
 * prompt's included) and Amplifier's own project config (`.amplifier/`).
 * Returned as real paths that exist, to be bound back read-only after the
 * writable binds; a repository's missing `hooks` folder is made first (as
 * `git init` would), so that it cannot be planted either. A `.git` file (a
 * worktree or submodule) leads to its git folder and that folder's common
 * one. Only the top of each writable folder is looked at: a repository nested
 * deeper stays writable.
 */
export function protectedPaths(writable: readonly string[]): string[] {
  const out = new Set<string>();
  const gitDirs = new Set<string>();
  for (const dir of writable) {
    const amplifier = path.join(dir, '.amplifier');
    if (fs.existsSync(amplifier)) out.add(realpathOr(amplifier));
    const git = path.join(dir, '.git');
    const stat = fs.lstatSync(git, { throwIfNoEntry: false });
    if (stat?.isDirectory()) gitDirs.add(realpathOr(git));
    else if (stat?.isFile()) {
      out.add(realpathOr(git));
      const linked = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(git))?.[1];
      if (linked !== undefined) {
        const gitDir = realpathOr(path.resolve(dir, linked));
        gitDirs.add(gitDir);
        const common = readSmall(path.join(gitDir, 'commondir')).trim();
        if (common !== '') gitDirs.add(realpathOr(path.resolve(gitDir, common)));
      }
    }
  }
  for (const gitDir of gitDirs) {
    if (!fs.statSync(gitDir, { throwIfNoEntry: false })?.isDirectory()) continue;
    // Outside every writable folder it is read-only already.
    if (!writable.some((w) => within(gitDir, realpathOr(w)))) continue;
    const hooks = path.join(gitDir, 'hooks');
    try {
      fs.mkdirSync(hooks, { recursive: true });
    } catch {
      // not ours to make: then it cannot be bound, and the command (same user) cannot make it either
    }
    for (const entry of [hooks, path.join(gitDir, 'config'), path.join(gitDir, 'config.worktree')]) {
      if (fs.existsSync(entry)) out.add(realpathOr(entry));
    }
  }
  return [...out];
}

/** The first 4 KiB of a small text file, or '' (a `.git` file, `commondir`). */
function readSmall(file: string): string {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(4096);
      return buffer.subarray(0, fs.readSync(fd, buffer, 0, 4096, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** The real path, or the resolved one when it does not exist. */
export function realpathOr(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}
