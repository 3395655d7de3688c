/**
 * Memory files: the `memory_files` key of the reference's context-persistent
 * module (this package's `context-persistent` alias). Each file is read once,
 * at mount, and stored as a system message labelled with its name, in the
 * order given; a missing, empty or unreadable file is skipped with a warning.
 * Which files may be read is the bundles kit's reference resolver's rule (one
 * resolver for every file config names): inside the working directory (or the
 * roots the app registers as `session.reference_roots`), `~/` only into
 * `$AMPLIFIER_HOME`, never a secret path, never a FIFO or a device.
 */
import os from 'node:os';
import path from 'node:path';
import { BundleReferenceError, referenceReader } from '@amplifier/bundles/references';
import type { Logger, Message } from '@amplifier/core';

/** `metadata.source` of a memory file's message: kept in the request view in factory mode too. */
export const MEMORY_FILE_SOURCE = 'memory-file';

/** The `memory_files` value as a list of paths; anything else throws an Error saying what is expected. */
export function memoryFileList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) {
    throw new Error(
      `context-simple: config key "memory_files" must be a list of file paths (e.g. ["./AGENTS.md", "~/.amplifier/AGENTS.md"]); got ${JSON.stringify(value)}`,
    );
  }
  return value as string[];
}

/** Where memory files may be (the app's choice; context-simple's default: the working directory, and `$AMPLIFIER_HOME` for `~/` paths). */
export interface MemoryFileScope {
  /** Folders memory files may be in (after symlinks). */
  roots: readonly string[];
  /** Folders under the home that `~/x` may reach (default: `$AMPLIFIER_HOME`, else `~/.amplifier`). */
  homeRoots?: readonly string[];
  /** The user's home (default: `os.homedir()`). */
  home?: string;
}

/** The user's Amplifier folder: `$AMPLIFIER_HOME`, else `~/.amplifier`. */
export function amplifierHomeOf(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const value = env.AMPLIFIER_HOME;
  return value !== undefined && value !== '' ? path.resolve(value) : path.join(home, '.amplifier');
}

/**
 * The system messages for `files` (relative to `baseDir`):
 * `[Context from <file name>]` and a blank line before the text, as the reference writes them.
 * Each file goes through the bundles kit's reference resolver: inside the
 * scope's roots after symlinks, never a secret path, a regular file within the
 * size cap. A missing or unreadable file is skipped with a warning; a refused
 * one throws an Error naming it and why.
 */
export async function readMemoryFiles(
  files: readonly string[],
  baseDir: string,
  logger: Logger,
  scope: MemoryFileScope = { roots: [baseDir] },
): Promise<Message[]> {
  const home = scope.home ?? os.homedir();
  const reader = referenceReader({
    roots: scope.roots,
    home,
    homeRoots: scope.homeRoots ?? [amplifierHomeOf(process.env, home)],
  });
  const declaredIn = 'the memory_files of context-simple';
  const messages: Message[] = [];
  for (const file of files) {
    let text: string;
    let full: string;
    try {
      const read = reader.readReference(file, declaredIn, { kind: 'memory file', base: baseDir });
      text = read.text;
      full = read.target.path;
    } catch (error) {
      if (!(error instanceof BundleReferenceError)) throw error;
      if (error.reason === 'missing') {
        logger.warn(
          `context-simple: memory file not found, skipped: ${file} (${error.target ?? path.resolve(baseDir, file)})`,
        );
        continue;
      }
      if (error.reason === 'unreadable') {
        logger.warn(`context-simple: could not read memory file ${file}, skipped: ${error.message}`);
        continue;
      }
      throw new Error(`context-simple: ${error.message}`, { cause: error });
    }
    if (text.trim() === '') {
      logger.debug(`context-simple: memory file ${file} is empty, skipped`);
      continue;
    }
    messages.push({
      role: 'system',
      content: `[Context from ${path.basename(full)}]\n\n${text}`,
      metadata: { source: MEMORY_FILE_SOURCE, path: full },
    });
  }
  return messages;
}
