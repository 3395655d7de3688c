/**
 * The part of grep that runs in a worker thread: walk, read, match. It is one
 * self-contained function (no imports, no outer variables) because the thread
 * is started from its source text: the same code then runs from `src/` under
 * a test runner and from `dist/`. The kernel can terminate the thread at any
 * moment, so a catastrophic regex never blocks the event loop.
 *
 * Files are read whole into one reused buffer (bounded by max_file_size) and
 * the regex runs over the whole text; line numbers are counted only up to each
 * match, and strings are made only for the results that are returned.
 */
import type fsModule from 'node:fs';
import type { MessagePort } from 'node:worker_threads';

export type GrepMode = 'files_with_matches' | 'content' | 'count';

export interface RegexSpec {
  source: string;
  flags: string;
}

export interface GrepJob {
  /** Real path of the directory (or file) to search. */
  base: string;
  /**
   * A descriptor of `base`, opened race-free by the caller (who closes it):
   * every directory is opened below it with `O_NOFOLLOW`, and every file
   * relative to its held directory, so the walk never leaves the base.
   */
  baseFd: number;
  /** Name held directories as `/proc/self/fd/<fd>` (Linux), else by their real path. */
  procFd: boolean;
  baseIsFile: boolean;
  /** How result paths start (the base as the model named it, made absolute). */
  displayBase: string;
  /** Flags without `g`; always includes `m`. */
  regex: RegexSpec;
  /**
   * Set when the pattern is a plain literal (case-sensitive, one line): files
   * whose bytes do not contain it are skipped before decoding, and in
   * files_with_matches mode a byte match is the answer.
   */
  literal: string | null;
  mode: GrepMode;
  multiline: boolean;
  lineNumbers: boolean;
  before: number;
  after: number;
  /** Window of returned items: `[offset, offset + limit)`. */
  offset: number;
  limit: number;
  /** Tested on the path relative to the base, or on the file name when `basename`. */
  include: (RegexSpec & { basename: boolean }) | null;
  /** Tested on the file name; any one must match. */
  types: RegexSpec[] | null;
  /** Directory names never entered, wherever they appear. */
  excluded: string[];
  /** Real paths never entered. */
  denied: string[];
  maxFileSize: number;
  maxLineChars: number;
  /** Only walk and return the files that pass the filters (`listed`), search nothing. */
  listOnly?: boolean;
  /** Search these files (relative to `base`) instead of walking. */
  files?: string[];
}

export interface ContextLine {
  line_number: number;
  content: string;
  is_match: boolean;
}

export interface ContentResult {
  file: string;
  line_number?: number;
  content: string;
  context?: ContextLine[];
}

export interface GrepOutcome {
  files: string[];
  results: ContentResult[];
  counts: [string, number][];
  /** Files (files_with_matches), matching lines (content), or the sum of counts (count). */
  totalMatches: number;
  /** Items before the window is applied (files, lines, or files with a count). */
  totalItems: number;
  filesSearched: number;
  skipped: { binary: number; too_large: number; unreadable: number };
  /** With `listOnly`: the files found, relative to the base, in walk order. */
  listed?: string[];
}

/** The worker's body. `fs` and `port` are passed in by the bootstrap line. */
export function grepWorkerMain(fs: typeof fsModule, port: MessagePort): void {
  const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  const DIR_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_DIRECTORY;
  let buffer = Buffer.allocUnsafe(1 << 20);

  /** A held directory: descriptor, real path, and the path children are opened through. */
  interface Held {
    fd: number;
    real: string;
    path: string;
  }

  function held(fd: number, real: string, procFd: boolean): Held {
    return { fd, real, path: procFd ? `/proc/self/fd/${fd}` : real };
  }

  /** Open the directory `name` of `dir` without following a symlink; undefined when it is not one now. */
  function openDir(dir: Held, name: string, procFd: boolean): Held | undefined {
    try {
      return held(
        fs.openSync(`${dir.path}/${name}`, DIR_FLAGS),
        `${dir.real === '/' ? '' : dir.real}/${name}`,
        procFd,
      );
    } catch {
      return undefined;
    }
  }

  port.on('message', (job: GrepJob) => {
    try {
      port.postMessage({ ok: run(job) });
    } catch (error) {
      port.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  });

  /**
   * Bytes of the file `name` of the held directory `dir` (or of the open file
   * `dir` when `name` is null) read into `buffer`, or -1 (unreadable, or no
   * longer a regular file) / -2 (over max).
   */
  function readWhole(dir: Held | number, name: string | null, max: number): number {
    let fd: number;
    try {
      fd = typeof dir === 'number' ? dir : fs.openSync(`${dir.path}/${name}`, OPEN_FLAGS);
    } catch {
      return -1;
    }
    try {
      if (typeof dir !== 'number' && !fs.fstatSync(fd).isFile()) return -1;
      let n = 0;
      for (;;) {
        if (n === buffer.length) {
          if (n > max) return -2;
          const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, max + 1));
          buffer.copy(bigger, 0, 0, n);
          buffer = bigger;
        }
        const got = fs.readSync(fd, buffer, n, buffer.length - n, n);
        if (got === 0) return n;
        n += got;
        if (n > max) return -2;
      }
    } catch {
      return -1;
    } finally {
      if (typeof dir !== 'number') fs.closeSync(fd);
    }
  }

  function run(job: GrepJob): GrepOutcome {
    const out: GrepOutcome = {
      files: [],
      results: [],
      counts: [],
      totalMatches: 0,
      totalItems: 0,
      filesSearched: 0,
      skipped: { binary: 0, too_large: 0, unreadable: 0 },
    };
    const re = new RegExp(job.regex.source, `${job.regex.flags}g`);
    const reLine = new RegExp(job.regex.source, job.regex.flags);
    const include = job.include ? new RegExp(job.include.source, job.include.flags) : null;
    const types = job.types ? job.types.map((t) => new RegExp(t.source, t.flags)) : null;
    const excluded = new Set(job.excluded);
    const denied = new Set(job.denied);
    const windowEnd = job.offset + job.limit;
    const { mode, multiline, maxLineChars } = job;
    const wantContext = job.before > 0 || job.after > 0;
    const literal = job.literal ? Buffer.from(job.literal, 'utf8') : null;
    const displayPrefix = job.displayBase.endsWith('/') ? job.displayBase : `${job.displayBase}/`;

    const cut = (line: string): string => {
      const clean = line.endsWith('\r') ? line.slice(0, -1) : line;
      return clean.length > maxLineChars ? `${clean.slice(0, maxLineChars)}... [truncated]` : clean;
    };

    /** Call `onLine(lineNo, start, end)` for every matching line (or multiline match); stop when it returns false. */
    function scan(text: string, onLine: (lineNo: number, start: number, end: number) => boolean): void {
      const len = text.length;
      if (len === 0) return;
      let lineNo = 1;
      let lineStart = 0;
      re.lastIndex = 0;
      for (;;) {
        const m = re.exec(text);
        if (m === null) return;
        const at = m.index;
        if (at === len && text.charCodeAt(len - 1) === 10) return; // the empty "line" after a final newline
        for (;;) {
          const nl = text.indexOf('\n', lineStart);
          if (nl === -1 || nl >= at) break;
          lineNo++;
          lineStart = nl + 1;
        }
        if (!multiline && m[0].indexOf('\n') !== -1) {
          // The regex can span lines (\s, [^x]...): from here on, match line by line.
          slowScan(text, lineNo, lineStart, onLine);
          return;
        }
        let end = text.indexOf('\n', multiline ? at + Math.max(m[0].length - 1, 0) : at);
        if (end === -1) end = len;
        if (!onLine(lineNo, lineStart, end)) return;
        if (end >= len) return;
        re.lastIndex = end + 1;
      }
    }

    function slowScan(
      text: string,
      firstLine: number,
      from: number,
      onLine: (lineNo: number, start: number, end: number) => boolean,
    ): void {
      const len = text.length;
      let lineNo = firstLine;
      for (let s = from; s < len; lineNo++) {
        let e = text.indexOf('\n', s);
        if (e === -1) e = len;
        if (reLine.test(text.slice(s, e)) && !onLine(lineNo, s, e)) return;
        s = e + 1;
      }
    }

    function contentResult(text: string, file: string, lineNo: number, s: number, e: number): ContentResult {
      const lines = text.slice(s, e).split('\n');
      const shown = lines.slice(0, 50).map(cut);
      if (lines.length > 50) shown.push(`... [${lines.length - 50} more lines]`);
      const result: ContentResult = { file, content: shown.join('\n') };
      if (job.lineNumbers) result.line_number = lineNo;
      if (!wantContext) return result;
      const context: ContextLine[] = [];
      const before: ContextLine[] = [];
      let p = s;
      for (let k = 0; k < job.before && p > 0; k++) {
        const prevStart = p >= 2 ? text.lastIndexOf('\n', p - 2) + 1 : 0;
        const line = text.slice(prevStart, p - 1);
        before.unshift({ line_number: lineNo - k - 1, content: cut(line), is_match: reLine.test(line) });
        p = prevStart;
      }
      context.push(...before);
      lines.forEach((line, k) => {
        context.push({ line_number: lineNo + k, content: cut(line), is_match: true });
      });
      let q = e;
      const last = lineNo + lines.length - 1;
      for (let k = 0; k < job.after && q < text.length - 1; k++) {
        let next = text.indexOf('\n', q + 1);
        if (next === -1) next = text.length;
        const line = text.slice(q + 1, next);
        context.push({ line_number: last + k + 1, content: cut(line), is_match: reLine.test(line) });
        q = next;
      }
      result.context = context;
      return result;
    }

    function searchFile(dir: Held | number, name: string | null, rel: string): void {
      const n = readWhole(dir, name, job.maxFileSize);
      if (n === -1) {
        out.skipped.unreadable++;
        return;
      }
      if (n === -2) {
        out.skipped.too_large++;
        return;
      }
      if (buffer.subarray(0, Math.min(n, 8192)).indexOf(0) !== -1) {
        out.skipped.binary++;
        return;
      }
      out.filesSearched++;
      if (literal !== null && buffer.subarray(0, n).indexOf(literal) === -1) return;
      const file = rel === '' ? job.displayBase : displayPrefix + rel;
      if (mode === 'files_with_matches') {
        if (literal === null) {
          let found = false;
          scan(buffer.toString('utf8', 0, n), () => {
            found = true;
            return false;
          });
          if (!found) return;
        }
        if (out.totalItems >= job.offset && out.totalItems < windowEnd) out.files.push(file);
        out.totalItems++;
        out.totalMatches++;
        return;
      }
      const text = buffer.toString('utf8', 0, n);
      if (mode === 'count') {
        let count = 0;
        scan(text, () => {
          count++;
          return true;
        });
        if (count === 0) return;
        if (out.totalItems >= job.offset && out.totalItems < windowEnd) out.counts.push([file, count]);
        out.totalItems++;
        out.totalMatches += count;
      } else {
        scan(text, (lineNo, s, e) => {
          if (out.totalItems >= job.offset && out.totalItems < windowEnd) {
            out.results.push(contentResult(text, file, lineNo, s, e));
          }
          out.totalItems++;
          out.totalMatches++;
          return true;
        });
      }
    }

    type OnFile = (dir: Held, name: string, rel: string) => void;

    function walk(dir: Held, rel: string, onFile: OnFile): void {
      let entries: fsModule.Dirent[];
      try {
        entries = fs.readdirSync(dir.path, { withFileTypes: true });
      } catch {
        out.skipped.unreadable++;
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const prefix = dir.real.endsWith('/') ? dir.real : `${dir.real}/`;
      for (const entry of entries) {
        const name = entry.name;
        if (denied.size > 0 && denied.has(prefix + name)) continue;
        const childRel = rel === '' ? name : `${rel}/${name}`;
        if (entry.isDirectory()) {
          if (excluded.has(name)) continue;
          // Opened with O_NOFOLLOW: a directory swapped for a symlink since the listing is skipped.
          const child = openDir(dir, name, job.procFd);
          if (child === undefined) continue;
          try {
            walk(child, childRel, onFile);
          } finally {
            fs.closeSync(child.fd);
          }
        } else if (entry.isFile()) {
          if (types !== null && !types.some((t) => t.test(name))) continue;
          if (include !== null && !include.test(job.include!.basename ? name : childRel)) continue;
          onFile(dir, name, childRel);
        }
        // Symlinks, FIFOs, sockets and devices are never followed or read.
      }
    }

    /** Search listed files, holding the chain of directories from the base to the current one. */
    function searchListed(base: Held, files: readonly string[]): void {
      const chain: { name: string; dir: Held }[] = [];
      try {
        for (const rel of files) {
          const parts = rel.split('/');
          const name = parts.pop()!;
          let common = 0;
          while (common < chain.length && common < parts.length && chain[common]!.name === parts[common])
            common++;
          while (chain.length > common) fs.closeSync(chain.pop()!.dir.fd);
          let ok = true;
          while (chain.length < parts.length) {
            const parent = chain.length === 0 ? base : chain[chain.length - 1]!.dir;
            const next = openDir(parent, parts[chain.length]!, job.procFd);
            if (next === undefined) {
              ok = false;
              break;
            }
            chain.push({ name: parts[chain.length]!, dir: next });
          }
          if (!ok) out.skipped.unreadable++;
          else searchFile(chain.length === 0 ? base : chain[chain.length - 1]!.dir, name, rel);
        }
      } finally {
        for (const link of chain) fs.closeSync(link.dir.fd);
      }
    }

    if (job.baseIsFile) searchFile(job.baseFd, null, '');
    else {
      const base = held(job.baseFd, job.base, job.procFd);
      if (job.files !== undefined) searchListed(base, job.files);
      else if (job.listOnly) {
        const listed: string[] = [];
        walk(base, '', (_dir, _name, rel) => listed.push(rel));
        out.listed = listed;
      } else walk(base, '', searchFile);
    }
    return out;
  }
}
