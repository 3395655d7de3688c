/**
 * The loader over a project with 2,000 installed packages of which 20 are
 * modules (`createLargeProject` of `@amplifier/testing`, npm and pnpm layouts): the
 * conventional-name fast path (`@amplifier/<id>`) against discovery (a module
 * with another name, found through its package.json "amplifier" field).
 * "Cold" is the first resolve in a fresh process (no in-process index; the OS
 * file cache is warm, as after any earlier run); "warm" repeats it in the
 * same process (discovery then uses its cached index).
 */
import { performance } from 'node:perf_hooks';
import { cached } from './cache.js';
import { fmt, type Group, type GroupOptions, meets, type Row, runChild, summarize } from './stats.js';

const GROUP = 'loader';
const FAST_IDS = ['bench-module-00', 'bench-module-02']; // @amplifier/bench-module-0x
const DISCOVERED_IDS = ['bench-module-01', 'bench-module-03']; // acme-agent-plugin-*, found only by discovery

interface Times {
  cold: number;
  /** The first resolve of another module of the same kind, right after. */
  other: number;
  warm: number[];
  rescan: number[];
  scanned: number;
}

/** Child task: time the first and the repeated resolves of `id` from `root`. */
async function resolveTimes(args: {
  root: string;
  id: string;
  otherId: string;
  repeats: number;
}): Promise<Times> {
  const { ModuleLoader } = await import('@amplifier/core');
  const time = async (fn: () => unknown): Promise<number> => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  const loader = new ModuleLoader({ baseDir: args.root, searchPaths: [] });
  const cold = await time(() => loader.resolve(args.id));
  const other = await time(() => loader.resolve(args.otherId));
  const warm: number[] = [];
  for (let i = 0; i < args.repeats; i++)
    warm.push(await time(() => new ModuleLoader({ baseDir: args.root, searchPaths: [] }).resolve(args.id)));
  const rescan: number[] = [];
  for (let i = 0; i < 3; i++) rescan.push(await time(() => loader.scan({ fresh: true })));
  return { cold, other, warm, rescan, scanned: loader.scan().scanned };
}

export const tasks = { resolveTimes };

async function run(options: GroupOptions): Promise<Row[]> {
  const rows: Row[] = [];
  const packages = options.quick ? 200 : 2000;
  for (const layout of ['npm', 'pnpm'] as const) {
    options.log(`loader: ${layout} project with ${packages} packages (generated once)`);
    const root = await cached(`loader-${layout}-${packages}`, async (dir) => {
      // Imported here, not at the top: the resolving children import this file too.
      const { createLargeProject } = await import('@amplifier/test-fixtures');
      createLargeProject(dir, { packages, modules: 20, layout });
    });
    for (const [label, [id, otherId]] of [
      ['conventional-name fast path', FAST_IDS],
      ['discovery (unconventional name)', DISCOVERED_IDS],
    ] as const) {
      const reports: Times[] = [];
      for (let i = 0; i < Math.max(5, options.runs); i++) {
        reports.push(
          (
            await runChild<Times>('child.js', [
              GROUP,
              'resolveTimes',
              JSON.stringify({ root, id, otherId, repeats: 20 }),
            ])
          ).value,
        );
      }
      const fast = id === FAST_IDS[0];
      const cold = summarize(reports.map((r) => r.cold));
      const warm = summarize(reports.map((r) => summarize(r.warm).median));
      const what = `${label}, ${layout} layout, ${packages} packages / 20 modules`;
      rows.push({
        group: GROUP,
        what: `${what}: cold (first resolve in a new process)`,
        value: `${fmt(cold.median)} ms`,
        range: `${fmt(cold.min)}–${fmt(cold.max)}`,
        target: fast ? '≤ 5 ms' : '≤ 150 ms',
        meets: meets(cold.median, fast ? 5 : 150),
        note: `includes the process's one-time work on its first resolve (first validation of a package.json manifest with ajv, first run of the loader code)${fast ? '' : `; discovery read ${reports[0]?.scanned} declared dependencies`}`,
      });
      const other = summarize(reports.map((r) => r.other));
      rows.push({
        group: GROUP,
        what: `${what}: first resolve of another module right after${fast ? '' : ' (index already built)'}`,
        value: `${fmt(other.median)} ms`,
        range: `${fmt(other.min)}–${fmt(other.max)}`,
      });
      rows.push({
        group: GROUP,
        what: `${what}: warm (same process${fast ? '' : ', cached index'})`,
        value: `${fmt(warm.median)} ms`,
        range: `${fmt(warm.min)}–${fmt(warm.max)}`,
        ...(fast
          ? { target: '≤ 5 ms', meets: meets(warm.median, 5) }
          : { target: '≤ 1 ms', meets: meets(warm.median, 1) }),
      });
      if (!fast) {
        const rescan = summarize(reports.map((r) => summarize(r.rescan).median));
        rows.push({
          group: GROUP,
          what: `${what}: full rescan in a warm process (\`scan({ fresh: true })\`)`,
          value: `${fmt(rescan.median)} ms`,
          range: `${fmt(rescan.min)}–${fmt(rescan.max)}`,
        });
      }
    }
  }
  return rows;
}

export const group: Group = { name: GROUP, title: 'Loader: fast path vs discovery', run };
