/**
 * The path-race stress test (issue 20, point 3): a racer process swaps a
 * directory and a file of the workspace for symlinks pointing outside it, by
 * rename, thousands of times, while read_file, write_file, edit_file, glob
 * and grep work inside the workspace over and over. Nothing outside may be
 * read (the marker never shows up in any output, no outside name is ever
 * listed) and nothing outside may change (same tree hash, same mtimes).
 * Bounded by counts (swaps of the racer, rounds of the tools), not by time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolResult } from '@amplifier/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashTree, type Mounted, makeTree, mountTools, type Tree } from './__fixtures__/helpers.js';

const racer = fileURLToPath(new URL('./__fixtures__/path-racer.mjs', import.meta.url));
/** Swaps of each kind (directory and file) the racer makes. */
const SWAPS = 20_000;
/** Rounds of the five tools, at least; more while the racer still runs. */
const MIN_ROUNDS = 40;

let tree: Tree;
let tools: Mounted | undefined;
beforeEach(() => {
  tree = makeTree();
});
afterEach(async () => {
  await tools?.cleanup();
  tools = undefined;
  tree.cleanup();
});

/** Every file's path and mtime under `dir` (links not followed). */
function mtimes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const visit = (p: string): void => {
    const stat = fs.lstatSync(p);
    out[p] = stat.mtimeMs;
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return out;
}

function startRacer(swaps: number): { proc: ChildProcess; ready: Promise<void>; done: Promise<number> } {
  const proc = spawn(process.execPath, [racer, tree.ws, String(swaps)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  proc.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('ready\n')) onReady();
  });
  const done = new Promise<number>((resolve, reject) => {
    proc.on('exit', (code) => {
      const count = /swaps (\d+)/.exec(out);
      if (code !== 0 || count === null) reject(new Error(`racer failed (exit ${code}): ${out}`));
      else resolve(Number(count[1]));
    });
  });
  return { proc, ready, done };
}

describe('path races: a racer swapping workspace entries for symlinks to outside', () => {
  it(`read, write, edit, glob and grep never read or change anything outside (${SWAPS} directory and ${SWAPS} file swaps)`, async () => {
    const outsideName = `OUTSIDE-NAME-${tree.marker}`;
    // Outside: the same names as inside, the marker in everything that could be read.
    for (const name of ['f.txt', 'e.txt', 'w.txt', outsideName]) {
      fs.writeFileSync(path.join(tree.outside, name), `edit-me ${tree.marker}\n`);
    }
    // Inside: d/ (swapped with d.link -> outside) and file.txt (swapped with file.link -> outside/secret.txt).
    fs.mkdirSync(path.join(tree.ws, 'd'));
    fs.writeFileSync(path.join(tree.ws, 'd', 'f.txt'), 'inside\n');
    fs.writeFileSync(path.join(tree.ws, 'd', 'e.txt'), 'edit-me\n');
    fs.writeFileSync(path.join(tree.ws, 'file.txt'), 'inside file\n');
    fs.symlinkSync(tree.outside, path.join(tree.ws, 'd.link'));
    fs.symlinkSync(tree.secret, path.join(tree.ws, 'file.link'));
    const hashBefore = hashTree(tree.outside);
    const timesBefore = mtimes(tree.outside);

    // The workspace is the root for reads too (reads default to anywhere).
    tools = await mountTools({
      working_dir: tree.ws,
      allowed_read_paths: ['.'],
      require_read_before_edit: false,
    });
    const { call } = tools;
    const results: [string, ToolResult][] = [];
    const run = async (tool: string, input: Record<string, unknown>): Promise<void> => {
      results.push([tool, await call(tool, input)]);
    };

    const { proc, ready, done } = startRacer(SWAPS);
    await ready;
    let racing = true;
    // Settled into a value at once, so a failing racer is reported by the test, not as unhandled.
    const finished = done.then(
      (count) => ({ count }),
      (error: Error) => ({ error }),
    );
    void finished.then(() => {
      racing = false;
    });
    let rounds = 0;
    try {
      while (rounds < MIN_ROUNDS || racing) {
        rounds++;
        await Promise.all([
          run('read_file', { file_path: 'd/f.txt' }),
          run('read_file', { file_path: 'file.txt' }),
          run('write_file', { file_path: 'd/w.txt', content: `round ${rounds}\n` }),
          run('write_file', { file_path: 'file.txt', content: `inside file ${rounds}\n` }),
          run('edit_file', { file_path: 'd/e.txt', old_string: 'edit-me', new_string: 'edit-me' + ' ' }),
          run('glob', { pattern: '**/*.txt' }),
          run('grep', { pattern: 'edit-me|MARKER', output_mode: 'content' }),
          run('read_file', { file_path: 'd' }),
        ]);
      }
    } finally {
      proc.stdin!.end();
    }
    const racerOutcome = await finished;
    if ('error' in racerOutcome) throw racerOutcome.error;
    const swaps = racerOutcome.count;
    const refusals = results.filter(([, r]) => !r.success).length;
    console.log(
      `path race: ${swaps} directory swaps and ${swaps} file swaps by the racer, ${rounds} rounds of 8 tool calls (${results.length} calls, ${refusals} refused or failed cleanly)`,
    );

    expect(swaps).toBe(SWAPS);
    const leaks: Record<string, number> = {};
    const crashes: string[] = [];
    for (const [tool, result] of results) {
      const text = JSON.stringify(result);
      if (text.includes(tree.marker) || text.includes('OUTSIDE-NAME')) leaks[tool] = (leaks[tool] ?? 0) + 1;
      // A failure is a clean one: a message for the model, never a crash.
      if (!result.success && typeof result.error?.message !== 'string') crashes.push(`${tool}: ${text}`);
    }
    const changedOutside = Object.entries(mtimes(tree.outside))
      .filter(([file, time]) => timesBefore[file] !== time)
      .map(([file]) => file);
    expect({ leaks, crashes, changedOutside, hash: hashTree(tree.outside) }).toEqual({
      leaks: {},
      crashes: [],
      changedOutside: [],
      hash: hashBefore,
    });
    expect(Object.keys(mtimes(tree.outside)).sort()).toEqual(Object.keys(timesBefore).sort());
    // The tools did work: each one succeeded inside, also while racing.
    const succeeded = new Set(results.filter(([, r]) => r.success).map(([tool]) => tool));
    expect([...succeeded].sort()).toEqual(['edit_file', 'glob', 'grep', 'read_file', 'write_file']);
  }, 600_000);
});
