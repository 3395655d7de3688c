/**
 * The workspace trust store: `$AMPLIFIER_HOME/trust.json` (mode 0600 in a
 * 0700 folder, written atomically), one decision per workspace, keyed by the
 * real path of the git root around a folder (else the folder itself). A store
 * that is corrupt, too large, a symlink, owned by another user or writable by
 * others is a `TrustStoreError` that says what to do: it never trusts anything.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isPlainObject, setOwn } from '@amplifier/core';
import { CliError } from './errors.js';
import { amplifierHome } from './sessions.js';

/** One workspace's decision, as stored (plain JSON, snake_case). */
export interface TrustDecision {
  trusted: boolean;
  /** ISO time of the decision. */
  decided_at: string;
  /**
   * What was trusted: the fingerprint of each `.amplifier/` folder (by real
   * path) when the decision was made. A folder whose content differs now, or
   * that has none recorded, is undecided again.
   */
  fingerprints?: Record<string, string>;
}

/** The whole store: decisions by workspace key (an absolute real path). */
export interface TrustStoreData {
  version: 1;
  workspaces: Record<string, TrustDecision>;
}

/** A trust store that cannot be used (the message says which file and what to do). */
export class TrustStoreError extends CliError {
  constructor(file: string, problem: string) {
    super(
      `The trust store ${file} ${problem}. No folder is trusted while it is unusable: fix it, or remove it and decide again with \`amplifier trust <dir>\`.`,
    );
    this.name = 'TrustStoreError';
  }
}

/** Larger than any real store (one short line per folder): refuse rather than read it. */
const MAX_STORE_BYTES = 1024 * 1024;

/** Where the store is. */
export function trustStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(amplifierHome(env), 'trust.json');
}

/**
 * The workspace a folder belongs to: the real path of the nearest folder at or
 * above it holding `.git` (a folder, or a file for worktrees), else the
 * folder's own real path. A folder that does not exist is a CliError.
 */
export function workspaceKey(dir: string): string {
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(dir));
  } catch (error) {
    throw new CliError(
      `Cannot find the folder ${path.resolve(dir)} (${(error as NodeJS.ErrnoException).code ?? error}): give an existing folder.`,
    );
  }
  if (!fs.statSync(real).isDirectory()) {
    throw new CliError(
      `${path.resolve(dir)} is not a folder: give the folder to trust (or the one you run in).`,
    );
  }
  for (let at = real; ; at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, '.git'))) return at;
    if (path.dirname(at) === at) return real;
  }
}

function checkFile(file: string): boolean {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return false;
  if (stat.isSymbolicLink())
    throw new TrustStoreError(file, 'is a symbolic link (it must be a regular file)');
  if (!stat.isFile()) throw new TrustStoreError(file, 'is not a regular file');
  if (stat.size > MAX_STORE_BYTES)
    throw new TrustStoreError(file, `is ${stat.size} bytes (a store is at most ${MAX_STORE_BYTES})`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new TrustStoreError(file, `belongs to uid ${stat.uid}, not to you (uid ${uid})`);
  if ((stat.mode & 0o022) !== 0)
    throw new TrustStoreError(
      file,
      `is writable by others (mode ${(stat.mode & 0o777).toString(8)}; it must be 600)`,
    );
  return true;
}

/** The store's decisions (none when there is no store); a TrustStoreError when it cannot be trusted. */
export function readTrustStore(env: NodeJS.ProcessEnv = process.env): TrustStoreData {
  const file = trustStorePath(env);
  const empty: TrustStoreData = { version: 1, workspaces: {} };
  if (!checkFile(file)) return empty;
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new TrustStoreError(file, `is not valid JSON (${(error as Error).message})`);
  }
  const shape =
    '{ "version": 1, "workspaces": { "<folder>": { "trusted": true|false, "decided_at": "<time>" } } }';
  if (!isPlainObject(data) || data.version !== 1 || !isPlainObject(data.workspaces)) {
    throw new TrustStoreError(file, `does not hold ${shape}`);
  }
  const workspaces: Record<string, TrustDecision> = {};
  for (const [key, value] of Object.entries(data.workspaces as Record<string, unknown>)) {
    const entry = isPlainObject(value) ? value : undefined;
    if (!path.isAbsolute(key) || typeof entry?.trusted !== 'boolean') {
      throw new TrustStoreError(
        file,
        `has a malformed entry ${JSON.stringify(key).slice(0, 200)} (each is an absolute folder path -> ${shape.slice(37, -4)})`,
      );
    }
    const prints = entry.fingerprints;
    if (
      prints !== undefined &&
      (!isPlainObject(prints) || !Object.values(prints).every((v) => typeof v === 'string'))
    ) {
      throw new TrustStoreError(
        file,
        `has malformed fingerprints for ${JSON.stringify(key).slice(0, 200)} (an object of folder -> hash)`,
      );
    }
    const decision: TrustDecision = {
      trusted: entry.trusted,
      decided_at: typeof entry.decided_at === 'string' ? entry.decided_at : '',
    };
    if (prints !== undefined) {
      decision.fingerprints = {};
      for (const [folder, hash] of Object.entries(prints)) setOwn(decision.fingerprints, folder, hash);
    }
    setOwn(workspaces, key, decision);
  }
  return { version: 1, workspaces };
}

const MAX_FINGERPRINT_FILES = 5000;
const MAX_FINGERPRINT_BYTES = 64 * 1024 * 1024;

/**
 * A hash of a `.amplifier/` folder: every entry's relative path and kind, a
 * file's content, a symlink's target (not followed), sorted; `none` when there
 * is no folder. Over 5,000 entries or 64 MiB it is `too-large` (never equal to
 * a recorded one: such a folder is asked about every time).
 */
export function projectFingerprint(dir: string): string {
  if (!fs.lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return 'none';
  const hash = createHash('sha256');
  let files = 0;
  let bytes = 0;
  const walk = (at: string, rel: string): boolean => {
    let names: string[];
    try {
      names = fs.readdirSync(at).sort();
    } catch {
      hash.update(`unreadable\0${rel}\0`);
      return true;
    }
    for (const name of names) {
      if (++files > MAX_FINGERPRINT_FILES) return false;
      const full = path.join(at, name);
      const relName = rel === '' ? name : `${rel}/${name}`;
      const stat = fs.lstatSync(full, { throwIfNoEntry: false });
      if (stat === undefined) continue;
      if (stat.isSymbolicLink()) hash.update(`link\0${relName}\0${fs.readlinkSync(full)}\0`);
      else if (stat.isDirectory()) {
        hash.update(`dir\0${relName}\0`);
        if (!walk(full, relName)) return false;
      } else if (stat.isFile()) {
        bytes += stat.size;
        if (bytes > MAX_FINGERPRINT_BYTES) return false;
        hash.update(`file\0${relName}\0${stat.size}\0`);
        hash.update(fs.readFileSync(full));
        hash.update('\0');
      } else hash.update(`other\0${relName}\0`);
    }
    return true;
  };
  return walk(dir, '') ? `sha256:${hash.digest('hex')}` : 'too-large';
}

/** The fingerprints to record for `.amplifier/` folders (by real path), those that exist. */
export function fingerprintsOf(dirs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dir of dirs) {
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch {
      continue;
    }
    const print = projectFingerprint(real);
    if (print !== 'none') setOwn(out, real, print);
  }
  return out;
}

/** The stored decision for a workspace key, if any. */
export function storedDecision(data: TrustStoreData, key: string): TrustDecision | undefined {
  return Object.hasOwn(data.workspaces, key) ? data.workspaces[key] : undefined;
}

/**
 * Record a decision (or remove it with `undefined`): the store is read again,
 * changed and replaced atomically, mode 0600 in a 0700 folder.
 */
export function writeDecision(
  key: string,
  decision: TrustDecision | undefined,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const data = readTrustStore(env);
  const workspaces: Record<string, TrustDecision> = {};
  for (const [k, v] of Object.entries(data.workspaces)) if (k !== key) setOwn(workspaces, k, v);
  const before = storedDecision(data, key);
  if (decision?.trusted && before?.trusted && before.fingerprints !== undefined) {
    // Trusting one .amplifier/ of the workspace keeps what was trusted of the others.
    decision = { ...decision, fingerprints: { ...before.fingerprints, ...decision.fingerprints } };
  }
  if (decision !== undefined) setOwn(workspaces, key, decision);
  const file = trustStorePath(env);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((fs.statSync(dir).mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  // A temp file made 0600 from the start, then renamed over the store: never readable by others.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temp, `${JSON.stringify({ version: 1, workspaces }, null, 2)}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
