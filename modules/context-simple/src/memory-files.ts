/**
 * Memory files: the `memory_files` key of the reference's context-persistent
 * module (this package's `context-persistent` alias). Each file is read once,
 * at mount, and stored as a system message labelled with its name, in the
 * order given; a missing, empty or unreadable file is skipped with a warning.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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

/** The absolute path of `file`: `~/` is the home directory, a relative path is joined onto `baseDir`. */
export function memoryFilePath(file: string, baseDir: string): string {
  const expanded = file === '~' || file.startsWith('~/') ? path.join(os.homedir(), file.slice(1)) : file;
  return path.resolve(baseDir, expanded);
}

/**
 * The system messages for `files` (relative to `baseDir`):
 * `[Context from <file name>]` and a blank line before the text, as the reference writes them.
 */
export async function readMemoryFiles(
  files: readonly string[],
  baseDir: string,
  logger: Logger,
): Promise<Message[]> {
  const messages: Message[] = [];
  for (const file of files) {
    const full = memoryFilePath(file, baseDir);
    let text: string;
    try {
      text = await readFile(full, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      logger.warn(
        code === 'ENOENT'
          ? `context-simple: memory file not found, skipped: ${file} (${full})`
          : `context-simple: could not read memory file ${file} (${full}), skipped: ${(error as Error).message}`,
      );
      continue;
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
