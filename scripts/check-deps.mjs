#!/usr/bin/env node
/**
 * The dependency rules of the workspace (CONTRIBUTING.md, "Dependency rules"), checked over
 * every package.json and every import statement. Exit code 1 and one line per violation.
 *
 * Layers: the kernel (`@amplifier/core`), kits (packages/* that are neither core nor the app
 * layer), modules (packages with an "amplifier" field), the app layer (the CLI, examples,
 * bench: anything goes). Test kits are the entry points meant for tests only:
 * `@amplifier/testing`, `@amplifier/test-fixtures` and every `<kit>/testing` subpath.
 *
 * 1. Core depends on no workspace package; only its tests may use kernel-free test kits.
 * 2. A kit depends on core, as a peer only, and may build on other kits (a runtime dependency,
 *    never a module or the app layer); the kits' dependencies form no cycle. A test kit may
 *    build on `@amplifier/test-fixtures`.
 * 3. A module depends on core (peer only) and kits, never on another module (a dev dependency
 *    on a module, for a test that runs a real session, ships nowhere and is allowed).
 * 4. Published production code (src/ minus tests and __fixtures__; test kits and private
 *    packages such as bench are not production code) never imports a test kit entry point, and
 *    never imports `./testing/` of its own package.
 * 5. Every `@amplifier/*` import is declared in the package.json of the importing package
 *    (production code: dependencies or peerDependencies), and no relative import leaves its
 *    package.
 * 6. While core is 0.x (where each minor may break), every peer range of `@amplifier/core` starts
 *    at core's current minor: packages released with core 0.y may use what 0.y added, so they must
 *    not admit an older core. After `changeset version` raises core, this fails until the ranges
 *    are raised too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST_KIT_ROOTS = new Set(['@amplifier/testing', '@amplifier/test-fixtures']);
const KERNEL_FREE_TEST_KITS = new Set(['@amplifier/test-fixtures']);

/**
 * A cycle of runtime dependencies among kits that starts and ends at `start`, or undefined.
 * `byName` maps a workspace package's name to `{ pkg, layer }`.
 */
function kitCycle(start, byName) {
  const name = start.pkg.name;
  const kitDeps = (p) =>
    Object.keys({ ...p.pkg.dependencies, ...p.pkg.optionalDependencies }).filter(
      (n) => byName.get(n)?.layer === 'kit',
    );
  const seen = new Set();
  const walk = (p, trail) => {
    for (const dep of kitDeps(p)) {
      if (dep === name) return [...trail, dep];
      if (seen.has(dep)) continue;
      seen.add(dep);
      const found = walk(byName.get(dep), [...trail, dep]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [name]);
}

/** Whether an import specifier names a test-kit entry point. */
export function isTestKitEntry(specifier) {
  const [scope, name, ...sub] = specifier.split('/');
  const pkg = `${scope}/${name}`;
  if (TEST_KIT_ROOTS.has(pkg)) return pkg !== '@amplifier/testing' || sub.length === 0;
  return sub[0] === 'testing';
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The workspace packages under `root` (the folders pnpm-workspace.yaml lists). */
export function workspacePackages(root) {
  const dirs = [];
  for (const group of ['packages', 'modules', 'examples']) {
    const base = path.join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) {
      if (existsSync(path.join(base, name, 'package.json'))) dirs.push(path.join(base, name));
    }
  }
  if (existsSync(path.join(root, 'bench', 'package.json'))) dirs.push(path.join(root, 'bench'));
  return dirs.map((dir) => {
    const pkg = readJson(path.join(dir, 'package.json'));
    const rel = path.relative(root, dir).split(path.sep).join('/');
    let layer;
    if (pkg.name === '@amplifier/core') layer = 'core';
    else if (pkg.amplifier !== undefined) layer = 'module';
    else if (rel.startsWith('packages/') && pkg.bin === undefined && !pkg.private) layer = 'kit';
    else layer = 'app';
    return { dir, rel, pkg, layer };
  });
}

function sourceFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      if (name === 'node_modules' || name === 'dist') continue;
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Module specifiers of the import and export-from statements (and dynamic imports) of `text`. */
export function importsOf(text) {
  const found = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const patterns = [
    /\bimport\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bexport\s+(?:type\s+)?(?:\*|\{[^}]*\})(?:\s+as\s+\w+)?\s*from\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.push(match[1]);
  return found;
}

const isTestFile = (file) =>
  /\.test\.[cm]?[jt]s$/.test(file) || file.split(path.sep).includes('__fixtures__');
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The lowest version a range admits (`workspace:>=0.2.0 <1.0.0`, `^0.2.0`, `~0.2.1`, `0.2.0`), or undefined. */
export function lowerBound(range) {
  const match = /(?:^|\s)(?:>=|\^|~|=)?\s*v?(\d+)\.(\d+)\.(\d+)/.exec(range.replace(/^workspace:/, ''));
  return match ? match.slice(1, 4).map(Number) : undefined;
}

/** Every violation of the rules in the workspace at `root`, one sentence each. */
export function checkWorkspace(root) {
  const packages = workspacePackages(root);
  const byName = new Map(packages.map((p) => [p.pkg.name, p]));
  const problems = [];
  const say = (p, text) => problems.push(`${p.rel}: ${text}`);

  for (const p of packages) {
    const { pkg, layer } = p;
    const runtime = { ...pkg.dependencies, ...pkg.optionalDependencies };
    const peers = { ...pkg.peerDependencies };
    const dev = { ...pkg.devDependencies };
    const inWorkspace = (deps) => Object.keys(deps).filter((name) => byName.has(name));

    // package.json rules
    if (layer === 'core') {
      for (const name of [...inWorkspace(runtime), ...inWorkspace(peers)])
        say(p, `core depends on ${name}: core depends on no kit and no module`);
      for (const name of inWorkspace(dev))
        if (!KERNEL_FREE_TEST_KITS.has(name))
          say(p, `core's tests use ${name}: only kernel-free test kits (${[...KERNEL_FREE_TEST_KITS]}) fit`);
    }
    if (layer === 'kit') {
      for (const name of inWorkspace(runtime)) {
        const target = byName.get(name);
        if (name === '@amplifier/core')
          say(p, 'a kit takes @amplifier/core as a peer dependency, not a dependency');
        else if (target.layer !== 'kit' && !KERNEL_FREE_TEST_KITS.has(name))
          say(p, `a kit depends on ${name} (${target.layer}): a kit depends only on core and other kits`);
      }
      const cycle = kitCycle(p, byName);
      if (cycle) say(p, `the kits depend on one another in a cycle: ${cycle.join(' -> ')}`);
      for (const name of inWorkspace(peers))
        if (name !== '@amplifier/core') say(p, `a kit depends on ${name} (peer): a kit depends only on core`);
    }
    if (layer === 'module') {
      for (const name of [...inWorkspace(runtime), ...inWorkspace(peers)]) {
        const target = byName.get(name);
        if (target.layer === 'module')
          say(p, `a module depends on the module ${name}: modules meet through the coordinator`);
        else if (target.layer === 'app') say(p, `a module depends on ${name} of the app layer`);
      }
      if (runtime['@amplifier/core'] !== undefined)
        say(p, 'a module takes @amplifier/core as a peer dependency, not a dependency');
    }
    if (layer === 'kit' || layer === 'module') {
      if (
        peers['@amplifier/core'] === undefined &&
        Object.keys({ ...runtime, ...dev }).includes('@amplifier/core')
      )
        say(p, 'uses @amplifier/core without declaring it as a peer dependency');
    }

    // import rules
    const ownTestKitDir = path.join(p.dir, 'src', 'testing');
    const exportsTesting = pkg.exports?.['./testing'] !== undefined;
    const wholeTestKit = TEST_KIT_ROOTS.has(pkg.name) || pkg.private === true;
    for (const file of sourceFiles(path.join(p.dir, 'src'))) {
      const relFile = path.relative(root, file).split(path.sep).join('/');
      const test = isTestFile(file);
      const inOwnTestKit = wholeTestKit || (exportsTesting && file.startsWith(ownTestKitDir + path.sep));
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(file), spec);
          if (!target.startsWith(p.dir + path.sep))
            problems.push(`${relFile}: imports ${spec}, outside its package`);
          else if (!test && !inOwnTestKit && exportsTesting && target.startsWith(ownTestKitDir + path.sep))
            problems.push(`${relFile}: production code imports its package's test kit (${spec})`);
          continue;
        }
        if (!spec.startsWith('@amplifier/')) continue;
        const name = packageOf(spec);
        if (name === pkg.name) continue;
        if (!test && !inOwnTestKit && isTestKitEntry(spec))
          problems.push(`${relFile}: production code imports the test kit ${spec}`);
        const declared = test || inOwnTestKit ? { ...runtime, ...peers, ...dev } : { ...runtime, ...peers };
        if (declared[name] === undefined)
          problems.push(
            `${relFile}: imports ${spec}, but ${pkg.name} does not declare ${name} in ${test ? 'any dependencies' : 'dependencies or peerDependencies'}`,
          );
      }
    }
  }

  // While core is 0.x, a peer range starts at core's current minor.
  const kernel = byName.get('@amplifier/core');
  const [coreMajor, coreMinor] = kernel ? kernel.pkg.version.split('.').map(Number) : [];
  if (kernel && coreMajor === 0) {
    for (const p of packages) {
      const range = p.pkg.peerDependencies?.['@amplifier/core'];
      if (range === undefined) continue;
      const low = lowerBound(range);
      if (low === undefined || low[0] !== 0 || low[1] < coreMinor)
        say(
          p,
          `its @amplifier/core peer range "${range}" admits a core older than 0.${coreMinor}.0 (core is ${kernel.pkg.version}); start it at >=0.${coreMinor}.0`,
        );
    }
  }

  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = checkWorkspace(root);
  const count = workspacePackages(root).length;
  if (problems.length > 0) {
    console.error(`Dependency rules: ${problems.length} violation(s) in ${count} packages:`);
    for (const problem of problems) console.error(`  - ${problem}`);
    console.error('The rules are in CONTRIBUTING.md ("Dependency rules").');
    process.exitCode = 1;
  } else {
    console.log(`Dependency rules: ${count} packages, no violation.`);
  }
}
