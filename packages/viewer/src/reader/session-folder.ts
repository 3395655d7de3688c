/**
 * The session folders under an AMPLIFIER_HOME, laid out as Amplifier's CLI
 * (Python) and this project's CLI both store them:
 * `<home>/projects/<slug>/sessions/<id>/` with `metadata.json`,
 * `transcript.jsonl` and `events.jsonl`, agent sessions flat next to their
 * parent (`parent_id` in their metadata). A folder counts as a session when
 * it holds any of the three files; what is missing or broken is reported by
 * the reader, never thrown.
 */
import fs from 'node:fs';
import path from 'node:path';

export const SESSION_FILES = ['metadata.json', 'transcript.jsonl', 'events.jsonl'] as const;

export interface SessionFolder {
  /** The folder name: the session id. */
  id: string;
  dir: string;
  /** The project slug (`-home-u-app`). */
  project: string;
}

function entries(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

export function findSessionFolders(home: string): SessionFolder[] {
  const out: SessionFolder[] = [];
  const projects = path.join(home, 'projects');
  for (const project of entries(projects)) {
    if (!project.isDirectory()) continue;
    const sessions = path.join(projects, project.name, 'sessions');
    for (const session of entries(sessions)) {
      if (!session.isDirectory()) continue;
      const dir = path.join(sessions, session.name);
      if (SESSION_FILES.some((file) => fs.existsSync(path.join(dir, file)))) {
        out.push({ id: session.name, dir, project: project.name });
      }
    }
  }
  return out;
}
