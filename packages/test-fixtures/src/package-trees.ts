/**
 * Real package trees on disk, for testing what reads them (the module loader,
 * source resolvers, a module's own package metadata): npm's hoisted
 * `node_modules`, pnpm's symlinked `.pnpm` virtual store, plain folders, and
 * module packages whose entry is a small ESM file written here (no build
 * step). Everything is written under a directory the caller owns (a temp dir,
 * removed by the caller). Depends on `node:` modules only.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Write `files` (relative path -> content; objects are written as JSON) under `root`. */
export function writeFiles(root: string, files: Record<string, string | object>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  }
}

/** A package to write. Everything but `name` has a default. */
/** The module types the kernel knows (the same list as core's `MODULE_TYPES`; any other string is written as given). */
export type PackageModuleType =
  | 'orchestrator'
  | 'provider'
  | 'tool'
  | 'hook'
  | 'context'
  | 'resolver'
  | (string & {});

export interface PackageSpec {
  name: string;
  version?: string;
  /** The module id; default: the name without `@amplifier/` or `amplifier-module-`. */
  id?: string;
  type?: PackageModuleType;
  /** The `"amplifier"` field as written; `null` writes none; default `{ module: id, type }`. */
  amplifier?: unknown;
  /** `peerDependencies["@amplifier/core"]`; default: none. */
  coreRange?: string;
  dependencies?: Record<string, string>;
  description?: string;
  /** More package.json fields (`main`, `exports`, ...), merged last. */
  packageJson?: Record<string, unknown>;
  /**
   * Files in the package; default an `index.js` whose `mount(coordinator, config)`
   * registers `config` as the capability `fixture.<id>`. Set to `{}` for none.
   */
  files?: Record<string, string | object>;
}

/** The module id a package stands for (`spec.id`, else its name without `@amplifier/` or `amplifier-module-`). */
export function moduleIdOf(spec: PackageSpec): string {
  return spec.id ?? spec.name.replace(/^@amplifier\//, '').replace(/^amplifier-module-/, '');
}

/** @deprecated Renamed `moduleIdOf` (what it returns); this alias goes with core 0.3's compat paths. */
export const idOf: (spec: PackageSpec) => string = moduleIdOf;

function defaultEntry(id: string): string {
  return `export const moduleId = ${JSON.stringify(id)};
export async function mount(coordinator, config) {
  coordinator.registerCapability(${JSON.stringify(`fixture.${id}`)}, config);
}
`;
}

/** Write a package (package.json and files) into `dir`; returns `dir`. */
export function writePackage(dir: string, spec: PackageSpec): string {
  const id = moduleIdOf(spec);
  const pkg: Record<string, unknown> = {
    name: spec.name,
    version: spec.version ?? '1.0.0',
    type: 'module',
    main: 'index.js',
  };
  if (spec.description !== undefined) pkg.description = spec.description;
  if (spec.amplifier !== null) pkg.amplifier = spec.amplifier ?? { module: id, type: spec.type ?? 'tool' };
  if (spec.dependencies !== undefined) pkg.dependencies = spec.dependencies;
  if (spec.coreRange !== undefined) pkg.peerDependencies = { '@amplifier/core': spec.coreRange };
  Object.assign(pkg, spec.packageJson);
  writeFiles(dir, { 'package.json': pkg, ...(spec.files ?? { 'index.js': defaultEntry(id) }) });
  return dir;
}

/** Write a project's root package.json declaring `dependencies` (and more fields); returns `root`. */
export function writeProject(
  root: string,
  dependencies: Record<string, string> = {},
  more: Record<string, unknown> = {},
): string {
  writeFiles(root, {
    'package.json': { name: 'fixture-project', private: true, type: 'module', dependencies, ...more },
  });
  return root;
}

/** npm's hoisted layout: each package is a real directory at `root/node_modules/<name>`. Returns them. */
export function installNpm(root: string, specs: readonly PackageSpec[]): string[] {
  return specs.map((spec) => writePackage(path.join(root, 'node_modules', spec.name), spec));
}

/** The folder of `name@version` in pnpm's virtual store under `root`. */
export function pnpmStoreDir(root: string, name: string, version = '1.0.0'): string {
  return path.join(
    root,
    'node_modules',
    '.pnpm',
    `${name.replace('/', '+')}@${version}`,
    'node_modules',
    name,
  );
}

function link(target: string, at: string): void {
  mkdirSync(path.dirname(at), { recursive: true });
  symlinkSync(path.relative(path.dirname(at), target), at, 'dir');
}

/**
 * pnpm's layout: every package is a real directory in
 * `node_modules/.pnpm/<name>@<ver>/node_modules/<name>`; the project's
 * `node_modules/<name>` is a symlink to it (only for `direct` packages, default
 * all); a package's own `dependencies` are symlinked next to it inside the
 * store, as pnpm does. Returns the real package directories.
 */
export function installPnpm(
  root: string,
  specs: readonly PackageSpec[],
  options: { direct?: readonly string[] } = {},
): string[] {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const dirs = specs.map((spec) => writePackage(pnpmStoreDir(root, spec.name, spec.version), spec));
  for (const spec of specs) {
    if (options.direct === undefined || options.direct.includes(spec.name)) {
      link(pnpmStoreDir(root, spec.name, spec.version), path.join(root, 'node_modules', spec.name));
    }
    const own = path.dirname(pnpmStoreDir(root, spec.name, spec.version));
    for (const dep of Object.keys(spec.dependencies ?? {})) {
      const target = byName.get(dep);
      if (target === undefined) continue;
      link(
        pnpmStoreDir(root, target.name, target.version),
        path.join(own, ...(dep.startsWith('@') ? dep.split('/') : [dep])),
      );
    }
  }
  return dirs;
}

/** A project with many installed packages, a few of them modules (see `createLargeProject`). */
export interface LargeProject {
  root: string;
  /** Ids of the module packages, in declaration order. */
  moduleIds: string[];
  /** Package names of the module packages. */
  modulePackages: string[];
  /** Every declared dependency. */
  dependencies: string[];
}

/** Options of `createLargeProject`. */
export interface LargeProjectOptions {
  /** Declared dependencies (default 2,000). */
  packages?: number;
  /** How many of them are Amplifier modules (default 20). */
  modules?: number;
  /** `npm` (hoisted real directories, the default) or `pnpm` (symlinks into `.pnpm`). */
  layout?: 'npm' | 'pnpm';
}

/**
 * A project like a big app: `packages` declared dependencies, `modules` of
 * which are Amplifier modules (ids `bench-module-00`, `-01`, ...) spread evenly
 * through the list; half are named `@amplifier/<id>`, half have unconventional
 * names (`acme-agent-plugin-<n>`) and are only found through their
 * `"amplifier"` field. Non-module packages have package.json files of
 * realistic size (about 1 KB) and an `index.js`.
 */
export function createLargeProject(root: string, options: LargeProjectOptions = {}): LargeProject {
  const total = options.packages ?? 2000;
  const moduleCount = Math.min(options.modules ?? 20, total);
  const step = moduleCount === 0 ? Number.POSITIVE_INFINITY : Math.floor(total / moduleCount);
  const types: PackageModuleType[] = ['tool', 'provider', 'hook', 'context', 'orchestrator'];
  const specs: PackageSpec[] = [];
  const project: LargeProject = { root, moduleIds: [], modulePackages: [], dependencies: [] };
  for (let i = 0; i < total; i++) {
    const n = String(i).padStart(4, '0');
    const moduleIndex = i % step === 0 ? i / step : -1;
    if (moduleIndex >= 0 && moduleIndex < moduleCount) {
      const id = `bench-module-${String(moduleIndex).padStart(2, '0')}`;
      const name = moduleIndex % 2 === 0 ? `@amplifier/${id}` : `acme-agent-plugin-${n}`;
      specs.push({ name, id, type: types[moduleIndex % types.length] ?? 'tool', coreRange: '*' });
      project.moduleIds.push(id);
      project.modulePackages.push(name);
      continue;
    }
    const name = i % 7 === 0 ? `@scope-${i % 13}/dep-${n}` : `dep-${n}`;
    specs.push({
      name,
      amplifier: null,
      description: `Fixture dependency number ${n}, standing in for an ordinary npm package of an app.`,
      packageJson: {
        keywords: ['fixture', 'dependency', 'benchmark', `n${n}`],
        license: 'MIT',
        repository: { type: 'git', url: `git+https://example.invalid/${name}.git` },
        exports: { '.': { types: './index.d.ts', import: './index.js', default: './index.js' } },
        files: ['index.js', 'index.d.ts'],
        scripts: { build: 'tsc -p tsconfig.build.json', test: 'vitest run', lint: 'biome check .' },
        engines: { node: '>=20' },
        dependencies: { 'left-pad': '^1.3.0', ms: '^2.1.3', debug: '^4.3.4' },
        devDependencies: { typescript: '^5.6.0', vitest: '^3.0.0' },
      },
      files: { 'index.js': `export const value = ${i};\n` },
    });
  }
  for (const spec of specs) project.dependencies.push(spec.name);
  writeProject(root, Object.fromEntries(specs.map((s) => [s.name, s.version ?? '1.0.0'])));
  if (options.layout === 'pnpm') installPnpm(root, specs);
  else installNpm(root, specs);
  return project;
}
