#!/usr/bin/env node
/**
 * `pnpm build` / `pnpm demo` / `pnpm bench`: `turbo run build <args>` with a
 * line per package as its build starts (a cold build takes minutes: it must
 * not look stuck), a last line with the count and the time, and nothing else
 * unless a build fails: then every line the failed packages printed. Turbo's
 * telemetry is off (no notice on a first run). Arguments go to turbo
 * (`node scripts/build.mjs --filter=@amplifier/cli...`).
 */
import { spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A reader of turbo's stream output (`--output-logs=new-only --ui=stream`):
 * `line(text)` for each line, `end(code)` when turbo exits; `write` gets what
 * to show. Exported for the tests.
 */
export function buildStatus(write, now = () => Date.now()) {
  const started = now();
  /** What each package printed (shown only when the build fails). */
  const logs = new Map();
  const other = [];
  const summary = {};
  let building = 0;
  let cached = 0;
  const clock = () => {
    const seconds = Math.round((now() - started) / 1000);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  };
  return {
    line(text) {
      const task = /^(\S+?):build: ?(.*)$/.exec(text);
      if (task !== null) {
        const [, pkg, rest] = task;
        if (/^cache (miss|bypass)/.test(rest)) {
          building += 1;
          write(`  ${clock()} building ${pkg}`);
        } else if (/^cache hit/.test(rest)) {
          cached += 1;
        } else if (rest.trim() !== '' && !rest.startsWith('> ')) {
          // pnpm's "> pkg build" echo says nothing; the rest (tsc errors...) is kept.
          logs.set(pkg, [...(logs.get(pkg) ?? []), rest]);
        }
        return;
      }
      const count = /Running build in (\d+) packages?/.exec(text);
      if (count !== null) {
        write(`build: ${count[1]} packages (a line as each starts; unchanged ones come from turbo's cache)`);
        return;
      }
      const total = /^\s*(Tasks|Cached|Time):\s+(.*?)\s*$/.exec(text);
      if (total !== null) {
        summary[total[1]] = total[2];
        return;
      }
      if (text.trim() !== '' && !/^\s*• /.test(text)) other.push(text);
    },
    end(code) {
      if (code !== 0) {
        for (const [pkg, lines] of logs) for (const l of lines) write(`${pkg}: ${l}`);
        for (const l of other) write(l);
        write(`build: failed (turbo exit code ${code}) after ${clock()}: the lines above are what failed`);
        return;
      }
      const tasks = summary.Tasks ?? `${building + cached} successful`;
      write(`build: done in ${clock()} (${tasks}; ${building} built, ${cached} from the cache)`);
    },
  };
}

/** Runs turbo, writing the status lines to stdout; resolves to turbo's exit code. */
async function main(args) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const bin = join(root, 'node_modules', '.bin');
  const env = {
    ...process.env,
    TURBO_TELEMETRY_DISABLED: '1',
    // turbo runs each package's script through pnpm: the workspace's own, also without pnpm on PATH.
    PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
  };
  const status = buildStatus((text) => process.stdout.write(`${text}\n`));
  const child = spawn(
    join(bin, 'turbo'),
    ['run', 'build', ...args.filter((a) => a !== '--'), '--output-logs=new-only', '--ui=stream'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) status.line(l.replace(/\r$/, ''));
    });
    stream.on('end', () => {
      if (rest !== '') status.line(rest);
    });
  }
  const code = await new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`build: could not run turbo (${error.message}): run pnpm install first\n`);
      resolve(1);
    });
    child.on('close', (exit) => resolve(exit ?? 1));
  });
  status.end(code);
  return code;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
