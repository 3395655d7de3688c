/**
 * Session grants: what "Allow always" allowed, remembered for the rest of the
 * session in `<session dir>/approvals.json`, so a resumed session (same id)
 * has them again. A grant covers the same tool with the same arguments (by
 * args hash) and, for a shell tool, every command line whose simple commands
 * all start with a granted prefix (see shell-match.ts). A grant never
 * overrides a deny rule: it only answers what would be asked.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '@amplifier/core';
import { prefixesCover, type ShellView } from './shell-match.js';

export interface Grant {
  tool: string;
  args_hash: string;
  /** Shell tools: the command prefixes granted (`[["git","status"],["npm","test"]]`). */
  prefixes?: string[][];
  tool_call_id: string;
  granted_at: string;
}

interface GrantsFile {
  version: 1;
  session_id: string;
  grants: Grant[];
}

/** Which grant covers a call, and how. */
export interface GrantMatch {
  grant: Grant;
  by: 'arguments' | 'prefix';
}

function isGrant(value: unknown): value is Grant {
  if (typeof value !== 'object' || value === null) return false;
  const g = value as Record<string, unknown>;
  const prefixesOk =
    g.prefixes === undefined ||
    (Array.isArray(g.prefixes) &&
      g.prefixes.every(
        (p) => Array.isArray(p) && p.length > 0 && p.every((w) => typeof w === 'string' && w !== ''),
      ));
  return typeof g.tool === 'string' && typeof g.args_hash === 'string' && prefixesOk;
}

export class GrantStore {
  readonly file: string;
  readonly #sessionId: string;
  readonly #warn: (message: string) => void;
  #grants: Grant[] = [];
  #loaded: Promise<void> | undefined;
  #saving: Promise<void> = Promise.resolve();

  constructor(file: string, sessionId: string, warn: (message: string) => void) {
    this.file = file;
    this.#sessionId = sessionId;
    this.#warn = warn;
  }

  /** Read the file once (a missing file is an empty store; a bad one is reported and ignored). */
  load(): Promise<void> {
    this.#loaded ??= this.#read();
    return this.#loaded;
  }

  async #read(): Promise<void> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#warn(`hooks-approval: cannot read session grants ${this.file}: ${errorMessage(error)}`);
      }
      return;
    }
    try {
      const parsed = JSON.parse(text) as Partial<GrantsFile>;
      const grants = Array.isArray(parsed.grants) ? parsed.grants : [];
      this.#grants = grants.filter(isGrant);
      if (this.#grants.length !== grants.length || !Array.isArray(parsed.grants)) {
        this.#warn(`hooks-approval: ignored malformed entries in ${this.file}`);
      }
    } catch (error) {
      this.#warn(`hooks-approval: ignoring unreadable session grants ${this.file}: ${errorMessage(error)}`);
    }
  }

  get grants(): readonly Grant[] {
    return this.#grants;
  }

  /** The grant that covers this call, if any (by exact arguments first, then by shell prefixes). */
  find(tool: string, hash: string, shell: ShellView | undefined): GrantMatch | undefined {
    const own = this.#grants.filter((g) => g.tool === tool);
    const exact = own.find((g) => g.args_hash === hash);
    if (exact) return { grant: exact, by: 'arguments' };
    if (shell === undefined) return undefined;
    const withPrefixes = own.filter((g) => g.prefixes !== undefined);
    const prefixes = withPrefixes.flatMap((g) => g.prefixes!);
    if (!prefixesCover(shell, prefixes)) return undefined;
    return { grant: withPrefixes[0]!, by: 'prefix' };
  }

  /** Remember a grant and write the file (atomically: temp file + rename). Errors are reported, not thrown. */
  async add(grant: Grant): Promise<void> {
    this.#grants.push(grant);
    const body: GrantsFile = { version: 1, session_id: this.#sessionId, grants: this.#grants };
    const text = `${JSON.stringify(body, null, 2)}\n`;
    this.#saving = this.#saving.then(() => this.#write(text));
    await this.#saving;
  }

  async #write(text: string): Promise<void> {
    const tmp = `${this.file}.${randomUUID()}.tmp`;
    try {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      await fs.writeFile(tmp, text, { mode: 0o600 });
      await fs.rename(tmp, this.file);
    } catch (error) {
      this.#warn(`hooks-approval: cannot save session grants to ${this.file}: ${errorMessage(error)}`);
      await fs.rm(tmp, { force: true }).catch(() => {});
    }
  }
}
