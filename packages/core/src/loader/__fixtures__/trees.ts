/**
 * Builders of real package trees for the loader's tests and benchmarks: npm
 * hoisted `node_modules`, pnpm's symlinked `.pnpm` virtual store, plain
 * folders, and module packages whose entry is a small ESM file written here
 * (no build step). Depends on `node:` modules only, so a benchmark can import
 * it as is.
 *
 * Every generated module entry records what happens to it on
 * `globalThis.__amplifierFixtures` (see `fixtureLog()`): how often the file was
 * evaluated (a module-level counter, keyed by `import.meta.url`) and each
 * `mount` call with its config.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MountPlan } from '../../mount-plan.js';

/** What the generated modules record. */
export interface FixtureLog {
  /** Evaluations per entry file URL. */
  imports: Record<string, number>;
  mounts: { id: string; url: string; config: Record<string, unknown> }[];
  ready: string[];
  /** Free-form records (cleanups, hook calls, provider requests) of the session modules. */
  events: string[];
}

/** The shared log written by generated module entries (created on first use). */
export function fixtureLog(): FixtureLog {
  const g = globalThis as { __amplifierFixtures?: FixtureLog };
  g.__amplifierFixtures ??= { imports: {}, mounts: [], ready: [], events: [] };
  return g.__amplifierFixtures;
}

/** A fresh directory under the OS temp dir (its real path). */
export function makeTempDir(prefix = 'amp-loader-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Remove a directory made by `makeTempDir`. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Write `files` (relative path -> content; objects are written as JSON) under `root`. */
export function writeFiles(root: string, files: Record<string, string | object>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  }
}

const LOG_PRELUDE = `const log = (globalThis.__amplifierFixtures ??= { imports: {}, mounts: [], ready: [], events: [] });`;

/**
 * The source of a module entry that records its evaluation and its mounts and
 * registers a capability `fixture.<id>` holding its config. `extra` is
 * appended verbatim (more exports, a thrown error, ...).
 */
export function moduleSource(id: string, extra = ''): string {
  return `${LOG_PRELUDE}
log.imports[import.meta.url] = (log.imports[import.meta.url] ?? 0) + 1;
export const moduleId = ${JSON.stringify(id)};
export async function mount(coordinator, config) {
  log.mounts.push({ id: ${JSON.stringify(id)}, url: import.meta.url, config });
  coordinator.registerCapability(${JSON.stringify(`fixture.${id}`)}, config);
}
${extra}`;
}

export type FixtureModuleType = 'orchestrator' | 'context' | 'provider' | 'tool' | 'hook' | 'resolver';

/** A package to write. Everything but `name` has a default. */
export interface PackageSpec {
  name: string;
  version?: string;
  /** The module id; default: the name without `@amplifier/` or `amplifier-module-`. */
  id?: string;
  type?: FixtureModuleType;
  /** The `"amplifier"` field as written; `null` writes none; default `{ module: id, type }`. */
  amplifier?: unknown;
  /** `peerDependencies["@amplifier/core"]`; default: none. */
  coreRange?: string;
  dependencies?: Record<string, string>;
  description?: string;
  /** More package.json fields (`main`, `exports`, ...), merged last. */
  packageJson?: Record<string, unknown>;
  /** Files in the package; default `{ 'index.js': moduleSource(id) }`. Set to `{}` for none. */
  files?: Record<string, string | object>;
}

/** The id a package stands for by default. */
export function idOf(spec: PackageSpec): string {
  return spec.id ?? spec.name.replace(/^@amplifier\//, '').replace(/^amplifier-module-/, '');
}

/** Write a package (package.json and files) into `dir`; returns `dir`. */
export function writePackage(dir: string, spec: PackageSpec): string {
  const id = idOf(spec);
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
  writeFiles(dir, { 'package.json': pkg, ...(spec.files ?? { 'index.js': moduleSource(id) }) });
  return dir;
}

/** Write a project's root package.json declaring `dependencies` (and more fields). */
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

/** npm's hoisted layout: each package is a real directory at `root/node_modules/<name>`. */
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

/**
 * A project like a big app: `packages` declared dependencies (default 2,000),
 * `modules` of which (default 20) are Amplifier modules spread evenly through
 * the list; half are named `@amplifier/<id>`, half have unconventional names
 * and are only found through their `"amplifier"` field. Non-module packages
 * have package.json files of realistic size (about 1 KB) and an `index.js`.
 * Layout `npm` (hoisted real directories) or `pnpm` (symlinks into `.pnpm`).
 */
export function createLargeProject(
  root: string,
  options: { packages?: number; modules?: number; layout?: 'npm' | 'pnpm' } = {},
): LargeProject {
  const total = options.packages ?? 2000;
  const moduleCount = Math.min(options.modules ?? 20, total);
  const step = moduleCount === 0 ? Number.POSITIVE_INFINITY : Math.floor(total / moduleCount);
  const types: FixtureModuleType[] = ['tool', 'provider', 'hook', 'context', 'orchestrator'];
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

/** Entry source of a session module: the log prelude, the import counter and `body` (which defines mount). */
function sessionModule(body: string): string {
  return `${LOG_PRELUDE}
log.imports[import.meta.url] = (log.imports[import.meta.url] ?? 0) + 1;
${body}`;
}

const E2E_ORCHESTRATOR = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'e2e-loop', url: import.meta.url, config });
  coordinator.mount('orchestrator', {
    async execute(prompt, run) {
      await run.context.addMessage({ role: 'user', content: prompt });
      const provider = run.providers.values().next().value;
      const tools = [...run.tools.values()].map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema ?? {} }));
      for (let step = 0; step < (config.max_steps ?? 4); step++) {
        const messages = await run.context.getMessagesForRequest({ provider });
        const response = await provider.complete({ messages, tools }, { signal: run.signal });
        const calls = provider.parseToolCalls(response);
        const text = response.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
        await run.context.addMessage({ role: 'assistant', content: text, ...(calls.length > 0 && { tool_calls: calls }) });
        if (calls.length === 0) return text;
        for (const call of calls) {
          await run.hooks.emit('tool:pre', { tool_name: call.name, tool_input: call.arguments });
          const tool = run.tools.get(call.name);
          const result = tool ? await tool.execute(call.arguments, { signal: run.signal, toolCallId: call.id })
            : { success: false, error: { message: 'no tool ' + call.name } };
          await run.hooks.emit('tool:post', { tool_name: call.name, tool_response: result });
          await run.context.addMessage({ role: 'tool', tool_call_id: call.id, content: String(result.output ?? result.error?.message) });
        }
      }
      return 'step limit reached';
    },
  });
  return () => { log.events.push('cleanup:e2e-loop'); };
}
`);

const E2E_CONTEXT = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'e2e-context', url: import.meta.url, config });
  let messages = [];
  coordinator.mount('context', {
    async addMessage(message) { messages.push(message); },
    async getMessagesForRequest() { return [...messages]; },
    async getMessages() { return [...messages]; },
    async setMessages(next) { messages = [...next]; },
    async clear() { messages = []; },
  });
  return async () => { log.events.push('cleanup:e2e-context'); };
}
`);

const E2E_PROVIDER = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'provider-e2e', url: import.meta.url, config });
  coordinator.mount('providers', {
    name: 'e2e',
    getInfo() { return { id: 'e2e', display_name: 'Scripted', defaults: {} }; },
    async listModels() { return []; },
    async complete(request) {
      const last = request.messages.at(-1);
      log.events.push('provider:complete:' + last.role);
      if (last.role === 'tool') return { content: [{ type: 'text', text: 'The tool said: ' + last.content }], finish_reason: 'stop' };
      return {
        content: [{ type: 'text', text: '' }],
        tool_calls: [{ id: 'call_1', name: 'echo', arguments: { text: config.say ?? 'hi' } }],
        finish_reason: 'tool_calls',
      };
    },
    parseToolCalls(response) { return response.tool_calls ?? []; },
  }, { name: 'e2e' });
  return () => { log.events.push('cleanup:provider-e2e'); };
}
`);

const E2E_TOOL = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'tool-echo-e2e', url: import.meta.url, config });
  coordinator.mount('tools', {
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(input) { return { success: true, output: (config.prefix ?? '') + input.text }; },
  });
  return () => { log.events.push('cleanup:tool-echo-e2e'); };
}
`);

const E2E_HOOK = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'hooks-record-e2e', url: import.meta.url, config });
  const off = ['session:start', 'tool:pre', 'tool:post', 'session:end'].map((event) =>
    coordinator.hooks.register(event, () => { log.events.push('hook:' + event); }, { name: 'record' }));
  return () => { for (const unregister of off) unregister(); log.events.push('cleanup:hooks-record-e2e'); };
}
export async function onSessionReady(coordinator) { log.ready.push('hooks-record-e2e'); }
`);

/**
 * A project for an end-to-end session, with five small modules laid out five
 * ways: the orchestrator hoisted npm-style (`@amplifier/e2e-loop`), the context
 * in a pnpm store behind a symlink (`@amplifier/e2e-context`), the provider
 * under the other conventional name (`amplifier-module-provider-e2e`), the tool
 * with an unconventional name found through the project's declared
 * dependencies (`acme-echo-tool`, id `tool-echo-e2e`), and a hook in a plain
 * folder given as a source path. Returns the mount plan that uses them.
 */
export function writeSessionProject(root: string): MountPlan {
  writeProject(root, { '@amplifier/e2e-context': '1.0.0', 'acme-echo-tool': '^1.0.0' });
  installNpm(root, [
    {
      name: '@amplifier/e2e-loop',
      type: 'orchestrator',
      coreRange: '*',
      files: { 'index.js': E2E_ORCHESTRATOR },
    },
    {
      name: 'amplifier-module-provider-e2e',
      type: 'provider',
      coreRange: '*',
      files: { 'index.js': E2E_PROVIDER },
    },
    { name: 'acme-echo-tool', id: 'tool-echo-e2e', type: 'tool', files: { 'index.js': E2E_TOOL } },
  ]);
  installPnpm(root, [
    {
      name: '@amplifier/e2e-context',
      type: 'context',
      coreRange: 'workspace:*',
      files: { 'index.js': E2E_CONTEXT },
    },
  ]);
  writeFiles(root, { 'local-hooks/index.js': E2E_HOOK });
  return {
    session: { orchestrator: 'e2e-loop', context: { module: 'e2e-context', config: { keep: 10 } } },
    providers: [{ module: 'provider-e2e', config: { say: 'ping' } }],
    tools: [{ module: 'tool-echo-e2e', config: { prefix: 'echo: ' } }],
    hooks: [{ module: 'hooks-record-e2e', source: './local-hooks' }],
  };
}
