#!/usr/bin/env node
/**
 * The real install test: what an npm user gets.
 *
 * 1. Build every publishable package (packages/* and modules/*, not private ones) with turbo.
 * 2. `pnpm pack` each one (pnpm rewrites workspace: and catalog: ranges) and check every
 *    tarball: dist/, README.md, LICENSE, package.json, no test files, no __fixtures__, no
 *    workspace:/catalog: ranges left.
 * 3. In a fresh directory under os.tmpdir() (outside the workspace), copy the example app
 *    (examples/basic-app), list every tarball as a `file:` dependency and `npm install`.
 * 4. Check there that
 *    (1) `amplifier modules list` shows exactly the installed modules (id, type, version),
 *    (2) the example app composes a session through @amplifier/core and runs its scripted turn
 *        with a tool from each tool module,
 *    (3) `amplifier run` works offline (the demo, no provider credentials),
 *    (4) with @amplifier/tool-bash removed (from node_modules and package.json), a plan that
 *        needs it fails with the "not found ... npm install @amplifier/tool-bash" error.
 *
 * Prints one PASS/FAIL line per check and exits 1 if any failed. Temp dirs are removed
 * (`--keep` leaves them for a look). Plain Node, no dependencies; needs network to the npm
 * registry for the packages' own dependencies.
 *
 *   node scripts/install-test.mjs [--keep]
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const keep = process.argv.includes('--keep');
const startedAt = Date.now();
const results = [];

// ---------------------------------------------------------------- reporting

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

function pass(name, detail = '') {
  results.push({ ok: true, name });
  console.log(`PASS ${name}${detail ? `: ${detail}` : ''}`);
}

function fail(name, detail, output) {
  results.push({ ok: false, name });
  console.log(`FAIL ${name}: ${detail}`);
  if (output) console.log(indent(output));
}

function indent(text, max = 4000) {
  const cut = text.length > max ? `${text.slice(0, max)}\n[... ${text.length - max} more characters]` : text;
  return cut
    .trimEnd()
    .split('\n')
    .map((line) => `    | ${line}`)
    .join('\n');
}

/** Run a command; resolves with { code, signal, stdout, stderr, ms } (never rejects for an exit code). */
function run(command, args, { cwd = root, env = process.env, input, timeoutMs = 300_000 } = {}) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // stdin is /dev/null unless input is given: an empty, non-TTY stdin, as in CI.
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - started,
      });
    });
    if (child.stdin) {
      child.stdin.on('error', () => {}); // a child that exits before reading its input is not our failure
      child.stdin.end(input);
    }
  });
}

function both(result) {
  return `${result.stdout}${result.stderr ? `\n[stderr]\n${result.stderr}` : ''}`;
}

// ---------------------------------------------------------------- tarballs

/** Every entry of a .tgz as { path, type, data } (ustar, pax and GNU long names). */
function readTarball(file) {
  const buffer = gunzipSync(readFileSync(file));
  const entries = [];
  let longName;
  for (let offset = 0; offset + 512 <= buffer.length; ) {
    const header = buffer.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const text = (start, length) => header.toString('utf8', start, start + length).replace(/\0.*$/s, '');
    const size = Number.parseInt(text(124, 12).trim() || '0', 8);
    const type = text(156, 1) || '0';
    const data = buffer.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x' || type === 'L') {
      const pax = data.toString('utf8');
      longName = type === 'L' ? pax.replace(/\0.*$/s, '') : /(?:^|\n)\d+ path=([^\n]*)\n/.exec(pax)?.[1];
      continue;
    }
    if (type === 'g') continue;
    const prefix = text(345, 155);
    const path = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100));
    longName = undefined;
    entries.push({ path, type, data });
  }
  return entries;
}

/** What is wrong with a packed package (an empty list when nothing is). */
function tarballProblems(entries) {
  const problems = [];
  const files = entries.filter((e) => e.type === '0').map((e) => e.path);
  for (const needed of ['package/package.json', 'package/README.md', 'package/LICENSE']) {
    if (!files.includes(needed)) problems.push(`no ${needed.slice('package/'.length)}`);
  }
  if (!files.some((f) => f.startsWith('package/dist/'))) problems.push('no dist/');
  const tests = files.filter((f) => /\.test\.[cm]?[jt]sx?$/.test(f) || /\.test\.d\.[cm]?ts$/.test(f));
  if (tests.length > 0) problems.push(`test files: ${tests.slice(0, 3).join(', ')}`);
  const fixtures = files.filter((f) => f.split('/').includes('__fixtures__'));
  if (fixtures.length > 0) problems.push(`__fixtures__: ${fixtures.slice(0, 3).join(', ')}`);
  const manifest = entries.find((e) => e.path === 'package/package.json');
  if (manifest) {
    const pkg = JSON.parse(manifest.data.toString('utf8'));
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [name, range] of Object.entries(pkg[field] ?? {})) {
        if (/^(workspace|catalog):/.test(range)) problems.push(`${field}.${name} is still '${range}'`);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------- the workspace

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * The publishable packages: packages/* and modules/* with a package.json that is not private.
 * In a git checkout only packages whose package.json git tracks count (a fresh clone has no
 * others); a folder someone is still creating is reported as skipped.
 */
async function publishablePackages() {
  const git = await run('git', ['ls-files', '--', 'packages/*/package.json', 'modules/*/package.json']).catch(
    () => undefined,
  );
  const tracked = git?.code === 0 ? new Set(git.stdout.split('\n').filter(Boolean)) : undefined;
  const found = [];
  const skipped = [];
  for (const group of ['packages', 'modules']) {
    const dir = join(root, group);
    for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
      const file = join(dir, name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = readJson(file);
      if (pkg.private) continue;
      if (tracked && !tracked.has(`${group}/${name}/package.json`)) skipped.push(`${group}/${name}`);
      else found.push({ dir: join(dir, name), pkg });
    }
  }
  return { found, skipped };
}

/** pnpm: the workspace's own copy when installed, else the version packageManager names, via npx. */
function pnpmCommand() {
  const local = join(root, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');
  if (existsSync(local)) return [process.execPath, [local]];
  const version =
    /^pnpm@(.+)$/.exec(readJson(join(root, 'package.json')).packageManager ?? '')?.[1] ?? 'latest';
  return ['npx', ['-y', `pnpm@${version}`]];
}

/**
 * The environment of an npm user's shell: without the npm_* and pnpm settings a `pnpm test:install`
 * run passes down (registry, global config, reporter, ...), without provider credentials (so runs
 * are offline) and without AMPLIFIER_MODULES (so modules come from the install dir only).
 */
function userEnv(extra = {}) {
  const env = { ...process.env, NO_COLOR: '1', ...extra };
  for (const key of Object.keys(env)) {
    if (
      /^(npm|pnpm)_/i.test(key) ||
      /^(OPENAI|ANTHROPIC|AZURE_OPENAI|GEMINI|GOOGLE)_/.test(key) ||
      /^AWS_(BEARER_TOKEN_BEDROCK|ENDPOINT_URL)/.test(key)
    )
      delete env[key];
  }
  delete env.AMPLIFIER_MODULES;
  delete env.FORCE_COLOR;
  return env;
}

// ---------------------------------------------------------------- the checks

/** (2): the example app, copied into the install dir, runs its scripted turn there. */
async function checkExampleApp(installDir, home) {
  const name = '(2) example app composes a session through @amplifier/core and uses every tool module';
  const result = await run(process.execPath, ['main.mjs'], {
    cwd: installDir,
    env: userEnv({ AMPLIFIER_HOME: home }),
    timeoutMs: 120_000,
  });
  const out = result.stdout;
  const expected = [
    ['glob (tool-filesystem)', /^tool glob: ok - 2 matches: (notes|todo)\.txt, (notes|todo)\.txt$/m],
    ['read_file (tool-filesystem)', /^tool read_file: ok - 2 of 2 lines of notes\.txt: The answer is 42\.$/m],
    ['bash (tool-bash)', /^tool bash: ok - exit 0: amplifier-42$/m],
    [
      'web_fetch (tool-web)',
      /^tool web_fetch: ok - HTTP 200 text\/html; charset=utf-8: # Status: all systems go$/m,
    ],
    ['word_count (tool-agentpm)', /^tool word_count: ok - 9 words, 43 characters$/m],
    ['the final answer', /^answer: The workspace has two text files, .*the sentence has 9 words\.$/m],
    ['the event log (hooks-logging)', /^log: \d+ events \(5 tool:post\) in /m],
  ];
  const missing = expected.filter(([, pattern]) => !pattern.test(out)).map(([what]) => what);
  const logFile = /^log: \d+ events \(5 tool:post\) in (.+)$/m.exec(out)?.[1];
  if (result.code !== 0) fail(name, `exit code ${result.code}`, both(result));
  else if (missing.length > 0) fail(name, `missing: ${missing.join(', ')}`, both(result));
  else if (!logFile?.startsWith(home) || !existsSync(logFile)) fail(name, `no event log under ${home}`, out);
  else
    pass(
      name,
      `glob, read_file, bash, web_fetch, word_count ok; answer and event log present (${seconds(result.ms)})`,
    );
}

/** Parse `amplifier modules list --json`: an array, or an object holding one. */
function parseModuleList(text) {
  const data = JSON.parse(text);
  const list = Array.isArray(data) ? data : (data.modules ?? []);
  return list.map((m) => ({
    id: m.id ?? m.module,
    type: m.type,
    version: m.version,
    package: m.package ?? m.name,
    path: m.path,
  }));
}

/** (1): `amplifier modules list` shows exactly the installed modules. */
async function checkModulesList(installDir, home, amplifier, expected, label) {
  const name = `(1) amplifier modules list shows exactly the installed modules${label}`;
  const env = userEnv({ AMPLIFIER_HOME: home });
  const json = await run(amplifier, ['modules', 'list', '--json'], {
    cwd: installDir,
    env,
    timeoutMs: 60_000,
  });
  if (json.code !== 0) return fail(name, `--json exit code ${json.code}`, both(json));
  let listed;
  try {
    listed = parseModuleList(json.stdout);
  } catch (error) {
    return fail(name, `--json output is not JSON (${error.message})`, both(json));
  }
  const key = (m) => `${m.id} ${m.type} ${m.version}`;
  const want = expected.map(key).sort();
  const got = listed.map(key).sort();
  const extra = got.filter((k) => !want.includes(k));
  const absent = want.filter((k) => !got.includes(k));
  if (extra.length > 0 || absent.length > 0 || got.length !== want.length) {
    return fail(
      name,
      `expected [${want.join('; ')}], got [${got.join('; ')}]` +
        (absent.length ? `; missing: ${absent.join('; ')}` : '') +
        (extra.length ? `; unexpected: ${extra.join('; ')}` : ''),
    );
  }
  const outside = listed.filter((m) => m.path && relative(installDir, m.path).startsWith('..'));
  if (outside.length > 0) {
    return fail(
      name,
      `found outside the install dir: ${outside.map((m) => `${m.id} at ${m.path}`).join(', ')}`,
    );
  }
  // The table a person reads names every module too.
  const table = await run(amplifier, ['modules', 'list'], { cwd: installDir, env, timeoutMs: 60_000 });
  const unnamed = expected.filter((m) => !table.stdout.includes(m.id));
  if (table.code !== 0 || unnamed.length > 0) {
    return fail(
      name,
      `the table (exit ${table.code}) does not name ${unnamed.map((m) => m.id).join(', ')}`,
      both(table),
    );
  }
  pass(name, `${listed.length} modules: ${listed.map((m) => m.id).join(', ')}`);
}

/** Every tool:post record of the sessions logged under `home` (hooks-logging's events.jsonl files). */
function loggedToolResults(home) {
  const found = [];
  const projects = join(home, 'projects');
  for (const project of existsSync(projects) ? readdirSync(projects) : []) {
    const sessions = join(projects, project, 'sessions');
    for (const id of existsSync(sessions) ? readdirSync(sessions) : []) {
      const file = join(sessions, id, 'events.jsonl');
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
        const record = JSON.parse(line);
        if (record.event === 'tool:post') {
          found.push({
            session: id,
            tool: record.data?.tool_name,
            success: record.data?.result?.success === true,
          });
        }
      }
    }
  }
  return found;
}

/** (3): `amplifier run` with no credentials is the offline demo, and its real tools work. */
async function checkOfflineRun(installDir, home, amplifier) {
  const name = '(3) amplifier run works offline (the demo)';
  const result = await run(amplifier, ['run', 'Show me around this project'], {
    cwd: installDir,
    env: userEnv({ AMPLIFIER_HOME: home }),
    timeoutMs: 120_000,
  });
  const text = both(result);
  const banner = `${result.stderr}\n${result.stdout}`.split('\n').find((l) => /offline demo/i.test(l));
  // The session's event log says which tools ran and how they did, whatever the display looks like.
  const tools = loggedToolResults(home);
  const failed = tools.filter((t) => !t.success).map((t) => t.tool);
  const used = [...new Set(tools.map((t) => t.tool))];
  if (result.code !== 0) fail(name, `exit code ${result.code}`, text);
  else if (!banner) fail(name, 'no line says it is the offline demo', text);
  else if (result.stdout.trim() === '') fail(name, 'no answer on stdout', text);
  // A project's dependency: its bin is in node_modules/.bin, not on the user's PATH, so the hint
  // must be the command that works there.
  else if (!result.stderr.includes('continue it with: npx amplifier continue')) {
    fail(name, 'the hint does not say `npx amplifier continue` (the command of a project install)', text);
  } else if (tools.length === 0) fail(name, `no tool:post in the session's events.jsonl under ${home}`, text);
  else if (failed.length > 0) fail(name, `tool calls failed: ${failed.join(', ')}`, text);
  else if (!used.includes('bash') || !used.some((t) => t === 'read_file' || t === 'glob')) {
    fail(name, `the demo used ${used.join(', ')}; expected bash and a filesystem tool`, text);
  } else {
    pass(name, `exit 0 in ${seconds(result.ms)}; ${used.join(', ')} ok; "${banner.trim().slice(0, 90)}"`);
  }
}

/** (4): a plan that needs a module that is not installed names the npm install command. */
async function checkMissingModule(installDir, home, amplifier, expectedAfter) {
  // Removed by hand: @amplifier/cli depends on every module it ships with, so `npm uninstall`
  // would keep the package for the CLI (or fetch it again).
  const removed = '@amplifier/tool-bash';
  const manifestFile = join(installDir, 'package.json');
  const manifest = readJson(manifestFile);
  delete manifest.dependencies[removed];
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(join(installDir, 'node_modules', ...removed.split('/')), { recursive: true, force: true });

  const env = userEnv({ AMPLIFIER_HOME: home });
  const needsInstall = new RegExp(`npm install ${removed.replace('/', '\\/')}`);
  const plan = join(installDir, 'needs-bash.yaml');
  writeFileSync(
    plan,
    [
      'session:',
      '  orchestrator: loop-basic',
      '  context: context-simple',
      'providers:',
      '  - module: provider-mock',
      'tools:',
      '  - module: tool-bash',
      '',
    ].join('\n'),
  );
  if (amplifier) {
    const name = `(4) amplifier run --plan needing tool-bash fails with "not found ... npm install ${removed}"`;
    const result = await run(amplifier, ['run', '--plan', plan, 'hello'], {
      cwd: installDir,
      env,
      timeoutMs: 60_000,
    });
    const text = both(result);
    if (result.code === 0) fail(name, 'exit code 0', text);
    else if (!/not found/i.test(text) || !needsInstall.test(text))
      fail(name, 'the message does not name the fix', text);
    else
      pass(
        name,
        `exit ${result.code}; "${text
          .split('\n')
          .find((l) => needsInstall.test(l))
          ?.trim()
          .slice(0, 120)}"`,
      );
    await checkModulesList(installDir, home, amplifier, expectedAfter, ' (after removing tool-bash)');
  }
  const name = `(4) the example app fails with "not found ... npm install ${removed}"`;
  const app = await run(process.execPath, ['main.mjs'], { cwd: installDir, env, timeoutMs: 60_000 });
  const text = both(app);
  if (app.code === 0) fail(name, 'exit code 0', text);
  else if (!/not found/i.test(app.stderr) || !needsInstall.test(app.stderr))
    fail(name, 'the message does not name the fix', text);
  else pass(name, `exit ${app.code}`);
}

/**
 * Core's old kit subpaths (`compat/`) were deleted before the first publish: the installed core
 * must not export them, so an import names the kit to use instead of loading a copy.
 */
async function checkDeprecatedSubpaths(installDir) {
  const name = '@amplifier/core/{provider,process,shell,testing,validation} are not exported';
  const script = `
const problems = [];
for (const old of ['provider', 'process', 'shell', 'testing', 'validation']) {
  try {
    await import('@amplifier/core/' + old);
    problems.push('@amplifier/core/' + old + ' still loads');
  } catch (error) {
    if (error?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') problems.push('@amplifier/core/' + old + ': ' + error?.code);
  }
}
console.log(JSON.stringify({ problems }));
`;
  const result = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: installDir,
    env: userEnv(),
  });
  let report;
  try {
    report = JSON.parse(result.stdout.trim().split('\n').pop());
  } catch {
    return fail(name, `exit code ${result.code}`, both(result));
  }
  if (report.problems.length > 0) fail(name, report.problems.join('; '));
  else pass(name, 'each import is refused with ERR_PACKAGE_PATH_NOT_EXPORTED');
}

// ---------------------------------------------------------------- main

async function main() {
  const { found: packages, skipped } = await publishablePackages();
  let [pnpm, pnpmArgs] = pnpmCommand();
  console.log(`== install test: ${packages.length} publishable packages, node ${process.version}`);
  if (skipped.length > 0) console.log(`     skipped (package.json not in git yet): ${skipped.join(', ')}`);
  const cli = packages.find((p) => p.pkg.name === '@amplifier/cli');
  const cliBin = typeof cli?.pkg.bin === 'object' && cli.pkg.bin !== null && cli.pkg.bin.amplifier;

  const work = mkdtempSync(join(tmpdir(), 'amplifier-install-test-'));
  const tarballs = join(work, 'tarballs');
  const installDir = join(work, 'app');
  const home = join(work, 'amplifier-home');
  mkdirSync(tarballs);
  mkdirSync(installDir);
  mkdirSync(home);
  /** A fresh AMPLIFIER_HOME per check, so each one reads only its own sessions. */
  const homeFor = (name) => {
    mkdirSync(join(home, name));
    return join(home, name);
  };
  if (relative(root, work).split(sep)[0] !== '..') throw new Error(`${work} is inside the workspace`);

  try {
    // A fresh clone has no node_modules yet: install the workspace first.
    if (!existsSync(join(root, 'node_modules', '.bin', 'turbo'))) {
      const install = await run(pnpm, [...pnpmArgs, 'install', '--frozen-lockfile'], { timeoutMs: 600_000 });
      if (install.code !== 0)
        return fail('pnpm install (workspace)', `exit code ${install.code}`, both(install));
      pass('pnpm install (workspace)', seconds(install.ms));
      [pnpm, pnpmArgs] = pnpmCommand(); // the workspace's own pnpm from now on (no npx per call)
    }

    const filters = packages.map((p) => `--filter=${p.pkg.name}`);
    // turbo runs each package's script through pnpm: both from the workspace's node_modules/.bin,
    // as an absolute PATH entry (a relative one would not resolve in the packages' folders).
    const bin = join(root, 'node_modules', '.bin');
    const build = await run(join(bin, 'turbo'), ['run', 'build', ...filters, '--output-logs=errors-only'], {
      env: {
        ...process.env,
        PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
        TURBO_TELEMETRY_DISABLED: '1',
      },
      timeoutMs: 600_000,
    });
    if (build.code !== 0) return fail('build (turbo run build)', `exit code ${build.code}`, both(build));
    pass(
      'build (turbo run build)',
      `${packages.length} packages and their dependencies (${seconds(build.ms)})`,
    );

    // Pack every publishable package and the example app in one pnpm run (pnpm rewrites their
    // workspace: and catalog: ranges, and resolves the example's catalog: ranges too).
    const exampleName = readJson(join(root, 'examples', 'basic-app', 'package.json')).name;
    const pack = await run(
      pnpm,
      [
        ...pnpmArgs,
        '-r',
        ...filters,
        `--filter=${exampleName}`,
        'pack',
        '--pack-destination',
        tarballs,
        '--json',
      ],
      { timeoutMs: 300_000 },
    );
    if (pack.code !== 0) return fail('pnpm pack', `exit code ${pack.code}`, both(pack));
    const tarballOf = new Map();
    for (const item of [JSON.parse(pack.stdout.slice(pack.stdout.search(/[[{]/)))].flat()) {
      tarballOf.set(item.name, item.filename);
    }
    const unpacked = [...packages.map((p) => p.pkg.name), exampleName].filter((n) => !tarballOf.has(n));
    if (unpacked.length > 0) return fail('pnpm pack', `no tarball for ${unpacked.join(', ')}`, both(pack));
    const packed = packages.map((p) => ({ ...p, tarball: tarballOf.get(p.pkg.name) }));
    const exampleTarball = tarballOf.get(exampleName);
    console.log(`     packed ${tarballOf.size} tarballs in ${seconds(pack.ms)}`);

    const expectedModules = [];
    for (const p of packed) {
      const entries = readTarball(p.tarball);
      const problems = tarballProblems(entries);
      const name = `pack ${p.pkg.name}@${p.pkg.version}`;
      if (problems.length > 0) fail(name, problems.join('; '));
      else
        pass(
          name,
          `${entries.filter((e) => e.type === '0').length} files; dist/, README.md, LICENSE, package.json; no tests or fixtures`,
        );
      const manifest = JSON.parse(
        entries.find((e) => e.path === 'package/package.json')?.data.toString('utf8') ?? '{}',
      );
      if (manifest.amplifier) {
        expectedModules.push({
          id: manifest.amplifier.module,
          type: manifest.amplifier.type,
          version: manifest.version,
        });
      }
    }

    // The example app, as packed, becomes the npm project; every tarball is a file: dependency.
    let appManifest;
    for (const entry of readTarball(exampleTarball)) {
      if (entry.type !== '0' || !entry.path.startsWith('package/')) continue;
      const rel = entry.path.slice('package/'.length);
      if (rel.startsWith('test/')) continue;
      if (rel === 'package.json') {
        appManifest = JSON.parse(entry.data.toString('utf8'));
        continue;
      }
      mkdirSync(dirname(join(installDir, rel)), { recursive: true });
      writeFileSync(join(installDir, rel), entry.data);
    }
    const dependencies = { ...appManifest.dependencies };
    for (const p of packed) dependencies[p.pkg.name] = `file:${p.tarball}`;
    // The test kits' suites need their optional peer, as a module author's project has it.
    dependencies.vitest = readJson(join(root, 'package.json')).devDependencies.vitest;
    writeFileSync(
      join(installDir, 'package.json'),
      `${JSON.stringify({ name: 'amplifier-install-test', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2)}\n`,
    );
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const npmVersion = (await run(npm, ['--version'], { cwd: installDir, env: userEnv() })).stdout.trim();
    const install = await run(npm, ['install', '--no-audit', '--no-fund'], {
      cwd: installDir,
      env: userEnv(),
      timeoutMs: 600_000,
    });
    const installed = packed.filter((p) =>
      existsSync(join(installDir, 'node_modules', ...p.pkg.name.split('/'), 'package.json')),
    );
    if (install.code !== 0 || installed.length !== packed.length) {
      return fail(
        'npm install',
        `exit code ${install.code}, ${installed.length}/${packed.length} packages installed`,
        both(install),
      );
    }
    pass(
      'npm install',
      `${packed.length} tarballs + registry dependencies with npm ${npmVersion} in ${installDir} (${seconds(install.ms)})`,
    );

    // The app must resolve core from the install dir, never from the workspace.
    const where = await run(
      process.execPath,
      ['--input-type=module', '-e', "console.log(import.meta.resolve('@amplifier/core'))"],
      { cwd: installDir, env: userEnv() },
    );
    const corePath = fileURLToPath(where.stdout.trim() || 'file:///nowhere');
    if (relative(installDir, corePath).startsWith('..'))
      fail('@amplifier/core resolves inside the install dir', corePath, both(where));
    else pass('@amplifier/core resolves inside the install dir', relative(installDir, corePath));

    await checkDeprecatedSubpaths(installDir);
    await checkExampleApp(installDir, homeFor('example-app'));

    const amplifier = join(installDir, 'node_modules', '.bin', 'amplifier');
    const pending = !cliBin
      ? 'PENDING: @amplifier/cli has not landed (no packages/cli/package.json with a bin "amplifier")'
      : !existsSync(amplifier)
        ? `node_modules/.bin/amplifier is missing after npm install of ${cli.pkg.name}`
        : undefined;
    if (pending) {
      fail('(1) amplifier modules list shows exactly the installed modules', pending);
      fail('(3) amplifier run works offline (the demo)', pending);
      fail('(4) amplifier run --plan needing a missing module names the npm install command', pending);
    } else {
      await checkModulesList(installDir, homeFor('modules-list'), amplifier, expectedModules, '');
      await checkOfflineRun(installDir, homeFor('offline-run'), amplifier);
    }
    const afterRemoval = expectedModules.filter((m) => m.id !== 'tool-bash');
    await checkMissingModule(
      installDir,
      homeFor('missing-module'),
      pending ? undefined : amplifier,
      afterRemoval,
    );
  } finally {
    if (keep) console.log(`     kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main()
  .catch((error) =>
    fail('install test', error instanceof Error ? (error.stack ?? error.message) : String(error)),
  )
  .finally(() => {
    const failed = results.filter((r) => !r.ok).length;
    console.log(
      `== install test: ${results.length - failed} passed, ${failed} failed in ${seconds(Date.now() - startedAt)}`,
    );
    process.exitCode = failed > 0 || results.length === 0 ? 1 : 0;
  });
