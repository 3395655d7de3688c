/** Temp folders with files for the tests, removed after each test. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BundleError } from '../errors.js';

const made: string[] = [];

/** A temp folder holding `files` (relative path -> text). */
export function tempTree(files: Record<string, string> = {}): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'amp-bundles-')));
  made.push(dir);
  writeTree(dir, files);
  return dir;
}

/** Write `files` under `dir`. */
export function writeTree(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

export function removeTempTrees(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** True when the `git` program runs. */
export function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A git repository on branch `main` holding `files`, committed; returns its folder. */
export function gitRepo(files: Record<string, string>): string {
  const dir = tempTree(files);
  const git = (...args: string[]): void => {
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    });
  };
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'bundles');
  return dir;
}

/** The real-world bundles (unchanged copies, see SOURCES.md). */
export const REALWORLD: string = path.join(path.dirname(new URL(import.meta.url).pathname), 'realworld');

/** The BundleError `promise` rejects with (another error is rethrown; success fails the test). */
export async function bundleFailure(promise: Promise<unknown>): Promise<BundleError> {
  try {
    await promise;
  } catch (error) {
    if (BundleError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a BundleError');
}
