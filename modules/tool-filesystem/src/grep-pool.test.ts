import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTree, type Tree } from './__fixtures__/helpers.js';
import { GrepWorkers, type RunOutcome } from './grep-pool.js';
import type { GrepJob, GrepMode } from './grep-worker.js';
import { hasProcFd } from './path-walk.js';

let tree: Tree;
let baseFd: number;
const sequential = new GrepWorkers({ parallelism: 1 });
const parallel = new GrepWorkers({ parallelism: 3, minFilesPerWorker: 4 });

beforeAll(() => {
  tree = makeTree();
  for (let i = 0; i < 40; i++) {
    const dir = path.join(tree.ws, `d${i % 4}`);
    fs.mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 1 + (i % 5) }, (_, k) =>
      k % 2 === 0 ? `hit ${i}.${k}` : `miss ${i}.${k}`,
    );
    fs.writeFileSync(path.join(dir, `f${String(i).padStart(2, '0')}.txt`), `${lines.join('\n')}\n`);
  }
  baseFd = fs.openSync(tree.ws, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
});
afterAll(async () => {
  await sequential.close();
  await parallel.close();
  fs.closeSync(baseFd);
  tree.cleanup();
});

function job(mode: GrepMode, offset: number, limit: number): GrepJob {
  return {
    base: tree.ws,
    baseFd,
    procFd: hasProcFd(),
    baseIsFile: false,
    displayBase: tree.ws,
    regex: { source: 'hit', flags: 'm' },
    literal: 'hit',
    mode,
    multiline: false,
    lineNumbers: true,
    before: 1,
    after: 0,
    offset,
    limit,
    include: null,
    types: null,
    excluded: [],
    denied: [],
    maxFileSize: 1 << 20,
    maxLineChars: 2000,
  };
}

const ok = (outcome: RunOutcome) => {
  if (!('ok' in outcome)) throw new Error(JSON.stringify(outcome));
  return outcome.ok;
};

describe('grep worker pool', () => {
  it('a search split over several workers returns exactly what one sequential pass returns, window by window', async () => {
    for (const mode of ['files_with_matches', 'content', 'count'] as const) {
      for (const [offset, limit] of [
        [0, Number.MAX_SAFE_INTEGER],
        [0, 7],
        [5, 11],
        [33, 4],
        [200, 5],
      ] as const) {
        const one = ok(await sequential.run(job(mode, offset, limit), undefined, 30_000));
        const many = ok(await parallel.run(job(mode, offset, limit), undefined, 30_000));
        expect(many, `${mode} ${offset}+${limit}`).toEqual(one);
        expect(one.filesSearched).toBe(40);
      }
    }
    const all = ok(await parallel.run(job('content', 0, Number.MAX_SAFE_INTEGER), undefined, 30_000));
    expect(all.totalMatches).toBe(all.results.length);
    expect(all.results.map((r) => r.content)).toEqual(
      [...all.results.map((r) => r.content)].sort((a, b) => {
        const [fa, ka] = a.slice(4).split('.').map(Number);
        const [fb, kb] = b.slice(4).split('.').map(Number);
        return (fa! % 4) - (fb! % 4) || fa! - fb! || ka! - kb!;
      }),
    );
  });

  it('an already aborted signal cancels; a closed pool refuses', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await parallel.run(job('count', 0, 10), controller.signal, 30_000)).toEqual({ cancelled: true });
    const closed = new GrepWorkers();
    await closed.close();
    expect(await closed.run(job('count', 0, 10), undefined, 30_000)).toEqual({
      error: 'the grep tool has been unmounted',
    });
  });
});

describe('grep worker: listed files are opened below the held base', () => {
  it('a listed file or directory that became a symlink to outside is not read', async () => {
    fs.symlinkSync(tree.secret, path.join(tree.ws, 'swapped.txt'));
    fs.symlinkSync(tree.outside, path.join(tree.ws, 'swapped-dir'));
    try {
      const found = ok(
        await sequential.run(
          {
            ...job('content', 0, 100),
            regex: { source: 'MARKER', flags: 'm' },
            literal: 'MARKER',
            files: ['swapped.txt', 'swapped-dir/secret.txt', 'd0/f00.txt'],
          },
          undefined,
          30_000,
        ),
      );
      expect(JSON.stringify(found)).not.toContain(tree.marker);
      expect(found.skipped.unreadable).toBe(2);
      expect(found.filesSearched).toBe(1);
    } finally {
      fs.unlinkSync(path.join(tree.ws, 'swapped.txt'));
      fs.unlinkSync(path.join(tree.ws, 'swapped-dir'));
    }
  });
});
