/**
 * Where sessions live, as Amplifier (ours and Python's) lays them out:
 * `<AMPLIFIER_HOME>/projects/<project slug>/sessions/<session id>/`, holding
 * `metadata.json`, `transcript.jsonl` and `events.jsonl` (with its rotated
 * `events.<n>.jsonl`).
 */
import os from 'node:os';
import path from 'node:path';

/** The names of the files of a session folder. */
export const SESSION_FILES: Readonly<{ metadata: string; transcript: string; events: string }> =
  Object.freeze({
    metadata: 'metadata.json',
    transcript: 'transcript.jsonl',
    events: 'events.jsonl',
  });

/** `AMPLIFIER_HOME` (made absolute), else `~/.amplifier`. */
export function amplifierHome(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.AMPLIFIER_HOME || path.join(os.homedir(), '.amplifier'));
}

/** `/home/u/app` -> `-home-u-app`: the folder name of a project (the working directory), as Python Amplifier writes it. */
export function projectSlug(workingDir: string): string {
  const slug = path.resolve(workingDir).replace(/[/\\]/g, '-').replace(/:/g, '');
  return slug.startsWith('-') ? slug : `-${slug}`;
}

/** The folder holding the sessions of the project at `workingDir`: `<home>/projects/<slug>/sessions`. */
export function projectSessionsDir(home: string, workingDir: string): string {
  return path.join(home, 'projects', projectSlug(workingDir), 'sessions');
}

/** A session id as a folder name: anything but letters, digits, `.`, `_` and `-` becomes `_`. */
export function sessionFolderName(sessionId: string): string {
  return sessionId.replace(/[^A-Za-z0-9._-]/g, '_');
}
