/**
 * Bundles in the CLI: where names are looked up (`./.amplifier/bundles`,
 * `$AMPLIFIER_HOME/bundles`, the bundles shipped with the CLI, then the
 * well-known names of Amplifier's repositories), git sources cloned into
 * `$AMPLIFIER_HOME/cache/bundles`, `--source <url>=<folder>` mappings, and the
 * `bundle list` / `bundle show` commands.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  type Bundle,
  BundleError,
  buildSystemPrompt,
  bundlePlanData,
  gitResolver,
  isUri,
  loadBundle,
  missingContextFiles,
  notRunnableReason,
  type SystemPromptOptions,
} from '@amplifier/bundles';
import { validateMountPlan } from '@amplifier/core';
import { stringify } from 'yaml';
import type { Display } from './display.js';
import { CliError, EXIT_OK, EXIT_USAGE } from './errors.js';
import { CLI_PACKAGE_DIR, createLoader, type StandIn, sourceStandIns } from './modules.js';
import { expandEnv, type UnsetVariable, unsetVariableWarnings } from './plan.js';
import { type IgnoredKey, restrictProjectPlanData } from './project-config.js';
import { amplifierHome } from './sessions.js';

/** The bundles shipped with the CLI (`default`: the built-in plan as a bundle). */
export const SHIPPED_BUNDLES_DIR: string = path.join(CLI_PACKAGE_DIR, 'bundles');

/** Names of Amplifier's own bundles, fetched with git on first use (the reference CLI's well-known names). */
export const WELL_KNOWN_BUNDLES: Readonly<Record<string, string>> = {
  foundation: 'git+https://github.com/microsoft/amplifier-foundation@main',
  anchors: 'git+https://github.com/microsoft/amplifier-foundation@main#subdirectory=bundles/anchors',
};

/** The project's bundle folder (`<cwd>/.amplifier/bundles`). */
export function projectBundlesDir(cwd: string): string {
  return path.join(cwd, '.amplifier', 'bundles');
}

/**
 * Where bundle names are looked up, first hit wins: the user's, the CLI's own,
 * then the project's (only when the folder is trusted). A project bundle never
 * takes a name the user's folder, the CLI or a well-known name already has.
 */
export function bundleSearchPaths(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  projectTrusted = false,
): string[] {
  return [
    path.join(amplifierHome(env), 'bundles'),
    SHIPPED_BUNDLES_DIR,
    ...(projectTrusted ? [projectBundlesDir(cwd)] : []),
  ];
}

const NAMED = (name: string): string[] => [
  path.join(name, 'bundle.md'),
  path.join(name, 'bundle.yaml'),
  path.join(name, 'bundle.yml'),
  `${name}.yaml`,
  `${name}.yml`,
  `${name}.md`,
];

/** The file a bundle name has in `dir`, if any. */
function namedIn(dir: string, name: string): string | undefined {
  return NAMED(name)
    .map((f) => path.join(dir, f))
    .find((f) => fs.statSync(f, { throwIfNoEntry: false })?.isFile() === true);
}

function realOrResolved(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** True when `file` (after symlinks) is inside the folder's `.amplifier/`. */
export function isProjectFile(file: string, cwd: string): boolean {
  const rel = path.relative(realOrResolved(path.join(cwd, '.amplifier')), realOrResolved(file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** Where git sources are cloned. */
export function bundleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(amplifierHome(env), 'cache', 'bundles');
}

/**
 * The CLI's own mention namespaces: `@user:x` in `$AMPLIFIER_HOME`, and
 * `@project:x` in `./.amplifier` when the folder is trusted (an untrusted
 * folder's files are not offered to prompts by that name).
 */
export function mentionNamespaces(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  projectTrusted = false,
): Record<string, string> {
  return {
    user: amplifierHome(env),
    ...(projectTrusted && { project: path.join(cwd, '.amplifier') }),
  };
}

/**
 * What the CLI gives the reference resolver for a system prompt: the
 * workspace (`cwd`) as a root besides the bundle's own, the CLI's namespaces,
 * and a warning (once per reference) for each refused @mention.
 */
export function promptOptions(
  cwd: string,
  warn: (message: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  projectTrusted = false,
): SystemPromptOptions {
  const shown = new Set<string>();
  return {
    roots: [cwd],
    namespaces: mentionNamespaces(cwd, env, projectTrusted),
    // The sessions' transcripts keep secrets verbatim: @user:projects/... never reads them.
    denied: [path.join(amplifierHome(env), 'projects')],
    onWarning: (message) => {
      if (shown.has(message)) return;
      shown.add(message);
      warn(message);
    },
  };
}

/** `AMPLIFIER_OFFLINE=1`: git sources come from the cache and --source copies only. */
export function isOffline(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.AMPLIFIER_OFFLINE;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** `--source <url>=<folder>` flags as a map (a folder relative to cwd made absolute). */
export function parseSourceFlags(flags: readonly string[] | undefined, cwd: string): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const flag of flags ?? []) {
    // The URL may hold '=' (#subdirectory=): the folder is after the last '='.
    const at = flag.lastIndexOf('=');
    if (at <= 0 || at === flag.length - 1) {
      throw new CliError(
        `--source ${flag}: write --source <url>=<folder> (or <url>=<other url>).`,
        EXIT_USAGE,
      );
    }
    const target = flag.slice(at + 1);
    sources[flag.slice(0, at)] = isUri(target) ? target : path.resolve(cwd, target);
  }
  return sources;
}

/** What loading a bundle needs from the command line. */
export interface BundleOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  sources?: readonly string[] | undefined;
  /** The folder's `.amplifier/` is trusted (default false: its bundles are not loaded). */
  projectTrusted?: boolean | undefined;
  /** Why it is (not) trusted, for messages. */
  trustReason?: string | undefined;
  /** Told which of two same-named bundles is used, and why. */
  notice?: ((message: string) => void) | undefined;
}

function untrustedMessage(what: string, cwd: string, reason: string | undefined): string {
  return `${what} is in ${path.join(cwd, '.amplifier')}, and this folder is not trusted${reason ? ` (${reason})` : ''}: a project's bundles are loaded only once you trust the folder. Review it, then run: amplifier trust ${cwd} (or pass --trust-project for one run).`;
}

/**
 * The reference to load: `project:<name>` becomes the project's file; a bare
 * name that both the project and the user, the CLI or a well-known name have
 * is the latter's (the notice says so, and how to pick the project's).
 */
function pickBundle(ref: string, options: BundleOptions, env: NodeJS.ProcessEnv): string {
  const projectDir = projectBundlesDir(options.cwd);
  const trusted = options.projectTrusted === true;
  if (ref.startsWith('project:')) {
    const name = ref.slice('project:'.length);
    const file = namedIn(projectDir, name);
    if (file === undefined || name === '' || name.includes('..')) {
      throw new CliError(`--bundle ${ref}: no bundle '${name}' in ${projectDir}.`);
    }
    if (!trusted)
      throw new CliError(untrustedMessage(`The bundle ${file}`, options.cwd, options.trustReason));
    return file;
  }
  if (
    isUri(ref) ||
    ref.includes('/') ||
    ref.includes('\\') ||
    /\.(md|ya?ml)$/i.test(ref) ||
    ref.includes(':')
  )
    return ref;
  const projectFile = namedIn(projectDir, ref);
  if (projectFile === undefined) return ref;
  const other =
    bundleSearchPaths(options.cwd, env, false)
      .map((dir) => namedIn(dir, ref))
      .find((f) => f !== undefined) ??
    (Object.hasOwn(WELL_KNOWN_BUNDLES, ref) ? WELL_KNOWN_BUNDLES[ref] : undefined);
  if (other !== undefined) {
    const wellKnown = !other.startsWith('/') && Object.hasOwn(WELL_KNOWN_BUNDLES, ref);
    options.notice?.(
      `bundle '${ref}': using ${other}. The project's ${projectFile} has the same name and is never picked by a bare name (a cloned repository must not replace your bundles); run it with --bundle project:${ref}${trusted ? '' : ' once the folder is trusted'}.`,
    );
    return wellKnown ? other : ref;
  }
  if (!trusted)
    throw new CliError(
      untrustedMessage(`The bundle '${ref}' (${projectFile})`, options.cwd, options.trustReason),
    );
  return ref;
}

/**
 * Load a bundle by path, name or URI; bundle errors become CliErrors that say
 * what to do. A bundle that reads a file of an untrusted folder's
 * `.amplifier/` is refused (by name, `project:` or path).
 */
export async function loadCliBundle(ref: string, options: BundleOptions): Promise<Bundle> {
  const env = options.env ?? process.env;
  const picked = pickBundle(ref, options, env);
  const bundle = await loadPicked(picked, options, env);
  const fromProject = bundle.files.filter((f) => isProjectFile(f, options.cwd));
  if (fromProject.length > 0 && options.projectTrusted !== true) {
    throw new CliError(
      untrustedMessage(
        `The bundle ${bundle.source} reads ${fromProject.join(', ')}, which`,
        options.cwd,
        options.trustReason,
      ),
    );
  }
  return bundle;
}

async function loadPicked(ref: string, options: BundleOptions, env: NodeJS.ProcessEnv): Promise<Bundle> {
  try {
    return await loadBundle(ref, {
      baseDir: options.cwd,
      roots: [options.cwd],
      searchPaths: bundleSearchPaths(options.cwd, env, options.projectTrusted === true),
      bundles: WELL_KNOWN_BUNDLES,
      resolvers: [gitResolver({ cacheDir: bundleCacheDir(env), offline: isOffline(env) })],
      sources: parseSourceFlags(options.sources, options.cwd),
    });
  } catch (error) {
    if (!BundleError.is(error)) throw error;
    throw new CliError(error.message);
  }
}

/**
 * A bundle's plan data with `${VAR}` expanded (as plan files), the bundle's
 * warnings to print, and the plan validator's (which a session logs itself
 * when it starts: only `bundle show`, which starts none, prints them). With
 * `cwd`, a bundle read from the folder's `.amplifier/` loses what never comes
 * from a project (provider endpoints and credentials...), listed in `ignored`.
 */
export function bundlePlan(
  bundle: Bundle,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): {
  data: Record<string, unknown>;
  warnings: string[];
  validator: string[];
  ignored: IgnoredKey[];
} {
  const unset: UnsetVariable[] = [];
  let data = expandEnv(bundlePlanData(bundle), env, (u) => unset.push(u));
  let ignored: IgnoredKey[] = [];
  const projectFile = cwd === undefined ? undefined : bundle.files.find((f) => isProjectFile(f, cwd));
  if (cwd !== undefined && projectFile !== undefined) {
    ({ data, ignored } = restrictProjectPlanData(data, projectFile, cwd));
  }
  return {
    data,
    warnings: [
      ...bundle.warnings,
      ...unsetVariableWarnings(unset, `the bundle ${bundle.source}`),
      ...missingContextFiles(bundle),
    ],
    validator: planWarnings(data),
    ignored,
  };
}

/** The mount plan validator's warnings (unknown sections and keys), as lines. */
export function planWarnings(data: unknown): string[] {
  return validateMountPlan(data).warnings.map((w) => `plan: ${w.path} ${w.message}`);
}

/** `amplifier bundle show`: the composed mount plan (YAML, or JSON with --json); warnings on stderr. */
export async function showBundle(
  ref: string,
  options: BundleOptions & { json: boolean; instructions: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  const bundle = await loadCliBundle(ref, { ...options, notice: (m) => display.warn(m) });
  const { data, warnings, validator, ignored } = bundlePlan(bundle, options.env, options.cwd);
  for (const warning of [...warnings, ...validator]) display.warn(warning);
  for (const item of ignored) display.warn(`${item.file}: ${item.key} ignored: ${item.why}`);
  const reason = notRunnableReason(bundle);
  if (reason !== undefined) display.warn(`not runnable on its own: ${reason}`);
  for (const line of standInLines(await sourceStandIns(data, createLoader(options.cwd)))) display.warn(line);
  if (options.instructions) {
    const prompt = await buildSystemPrompt(
      bundle,
      promptOptions(options.cwd, (m) => display.warn(m), options.env, options.projectTrusted === true),
    );
    out.write(options.json ? `${JSON.stringify({ instructions: prompt ?? null })}\n` : `${prompt ?? ''}\n`);
    return EXIT_OK;
  }
  out.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : stringify(data, { lineWidth: 0 }));
  return EXIT_OK;
}

/** `bundle show`'s line for each module source that is not fetched: what stands in, or that nothing does. */
function standInLines(standIns: readonly StandIn[]): string[] {
  return standIns.map((s) =>
    s.package !== undefined
      ? `module '${s.module}': ${s.package} stands in for ${s.source} (module sources are not fetched)`
      : `module '${s.module}': nothing installed stands in for ${s.source} (module sources are not fetched), so a run fails. Fix: npm install @amplifier/${s.module}, or give the entry a source: "<path or package name>"`,
  );
}

/** One row of `bundle list`. */
export interface BundleListing {
  name: string;
  /** `project`, `user`, `shipped` or `well-known`. */
  origin: string;
  /** The file, or the URI of a well-known name. */
  location: string;
  description: string;
}

/**
 * The bundles found by name: the user's, the CLI's, the project's (marked when
 * the folder is not trusted, or when the name is taken: a project bundle never
 * shadows one), then the well-known names not shadowed.
 */
export function findBundles(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  projectTrusted = false,
): BundleListing[] {
  const found: BundleListing[] = [];
  const seen = new Set<string>();
  const folders: Array<[string, string]> = [
    ['user', path.join(amplifierHome(env), 'bundles')],
    ['shipped', SHIPPED_BUNDLES_DIR],
    ['project', projectBundlesDir(cwd)],
  ];
  for (const [origin, dir] of folders) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const file = entry.isDirectory()
        ? ['bundle.md', 'bundle.yaml', 'bundle.yml']
            .map((f) => path.join(dir, entry.name, f))
            .find((f) => fs.existsSync(f))
        : /\.(md|ya?ml)$/.test(entry.name)
          ? path.join(dir, entry.name)
          : undefined;
      if (file === undefined) continue;
      const name = entry.isDirectory() ? entry.name : entry.name.replace(/\.(md|ya?ml)$/, '');
      if (origin === 'project') {
        const taken = seen.has(name) || Object.hasOwn(WELL_KNOWN_BUNDLES, name);
        const marks = [
          ...(projectTrusted ? [] : ['untrusted']),
          ...(taken ? [`name taken: --bundle project:${name}`] : []),
        ];
        found.push({
          name: taken ? `project:${name}` : name,
          origin: marks.length > 0 ? `project (${marks.join(', ')})` : 'project',
          location: file,
          description: describeFile(file),
        });
        continue;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      found.push({ name, origin, location: file, description: describeFile(file) });
    }
  }
  for (const [name, uri] of Object.entries(WELL_KNOWN_BUNDLES)) {
    if (seen.has(name)) continue;
    found.push({ name, origin: 'well-known', location: uri, description: 'fetched with git on first use' });
  }
  return found;
}

/** The `bundle.description` of a file (first line), or '' when it cannot be read. */
function describeFile(file: string): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const match = /^\s+description:\s*(?:[|>][-+]?\s*\n\s+)?(.+)$/m.exec(text);
    return match?.[1]?.trim().replace(/^["']|["']$/g, '') ?? '';
  } catch {
    return '';
  }
}

/** `amplifier bundle list`. */
export function listBundles(
  options: { cwd: string; json: boolean; env?: NodeJS.ProcessEnv; projectTrusted?: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): number {
  const env = options.env ?? process.env;
  const trusted = options.projectTrusted === true;
  const rows = findBundles(options.cwd, env, trusted);
  if (options.json) {
    out.write(
      `${JSON.stringify({ bundles: rows, search_paths: bundleSearchPaths(options.cwd, env, trusted) }, null, 2)}\n`,
    );
    return EXIT_OK;
  }
  const width = Math.max(4, ...rows.map((r) => r.name.length));
  const originWidth = Math.max(6, ...rows.map((r) => r.origin.length));
  out.write(`${'NAME'.padEnd(width)}  ${'ORIGIN'.padEnd(originWidth)}  LOCATION\n`);
  for (const row of rows) {
    out.write(`${row.name.padEnd(width)}  ${row.origin.padEnd(originWidth)}  ${row.location}\n`);
  }
  display.line(
    display.colors.dim(
      `Searched, first hit wins: ${bundleSearchPaths(options.cwd, env, trusted).join(', ')}${trusted ? '' : ` (not ${projectBundlesDir(options.cwd)}: the folder is not trusted, see amplifier trust)`}`,
    ),
  );
  return EXIT_OK;
}
