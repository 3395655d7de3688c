/**
 * The manifest's `files` entries, read as AgentPM's packager reads them
 * (`agentpm publish`): an entry is a path relative to the tool folder; one
 * that names a directory (`"dist/"`, `"summarize_text"`) stands for every
 * file below it, one that names a file stands for that file. An entry that
 * names nothing on disk is read as a glob (`"*.py"`, `"lib/**"`), which this
 * module accepted before and the packager does not expand.
 */
import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';

/** How one `files` entry is read. */
export type FilesEntryKind = 'directory' | 'file' | 'glob';

/** `./dist/` -> `dist`; `a//b/` -> `a/b` (the entry as a clean relative POSIX path). */
function normalize(entry: string): string {
  const posix = entry.replace(/\\/g, '/');
  return path.posix
    .normalize(posix)
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
}

/** What a `files` entry names inside `root`: a directory, a file, or (naming nothing) a glob. */
export function filesEntryKind(root: string, entry: string): FilesEntryKind {
  const clean = normalize(entry);
  if (clean === '' || clean === '.') return 'directory';
  const stat = fs.statSync(path.join(root, clean), { throwIfNoEntry: false });
  if (stat?.isDirectory()) return 'directory';
  if (stat?.isFile()) return 'file';
  // "dist/" that does not exist (yet): still a directory entry, as the packager reads it.
  return /[\\/]$/.test(entry) ? 'directory' : 'glob';
}

/**
 * A predicate telling whether a path (relative to `root`, POSIX separators)
 * is included by `files`: under a directory entry, equal to a file entry, or
 * matched by a glob entry (dot files included).
 */
export function filesMatcher(root: string, entries: readonly string[]): (relative: string) => boolean {
  const tests: ((relative: string) => boolean)[] = [];
  for (const entry of entries) {
    const clean = normalize(entry);
    switch (filesEntryKind(root, entry)) {
      case 'directory':
        tests.push(
          clean === '' || clean === '.'
            ? () => true
            : (relative) => relative === clean || relative.startsWith(`${clean}/`),
        );
        break;
      case 'file':
        tests.push((relative) => relative === clean);
        break;
      case 'glob':
        try {
          tests.push(picomatch(clean, { dot: true }));
        } catch {
          // An invalid glob includes nothing (lint reports it).
        }
        break;
    }
  }
  return (relative) => tests.some((test) => test(relative));
}
