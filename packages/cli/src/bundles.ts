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
import { CLI_PACKAGE_DIR } from './modules.js';
import { expandEnv } from './plan.js';
import { amplifierHome } from './sessions.js';

/** The bundles shipped with the CLI (`default`: the built-in plan as a bundle). */
export const SHIPPED_BUNDLES_DIR: string = path.join(CLI_PACKAGE_DIR, 'bundles');

/** Names of Amplifier's own bundles, fetched with git on first use (the reference CLI's well-known names). */
export const WELL_KNOWN_BUNDLES: Readonly<Record<string, string>> = {
  foundation: 'git+https://github.com/microsoft/amplifier-foundation@main',
  anchors: 'git+https://github.com/microsoft/amplifier-foundation@main#subdirectory=bundles/anchors',
};

/** Where bundle names are looked up, first hit wins: the project's, the user's, the CLI's own. */
export function bundleSearchPaths(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    path.join(cwd, '.amplifier', 'bundles'),
    path.join(amplifierHome(env), 'bundles'),
    SHIPPED_BUNDLES_DIR,
  ];
}

/** Where git sources are cloned. */
export function bundleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(amplifierHome(env), 'cache', 'bundles');
}

/** The CLI's own mention namespaces: `@user:x` in `$AMPLIFIER_HOME`, `@project:x` in `./.amplifier`. */
export function mentionNamespaces(cwd: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { user: amplifierHome(env), project: path.join(cwd, '.amplifier') };
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
): SystemPromptOptions {
  const shown = new Set<string>();
  return {
    roots: [cwd],
    namespaces: mentionNamespaces(cwd, env),
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
}

/** Load a bundle by path, name or URI; bundle errors become CliErrors that say what to do. */
export async function loadCliBundle(ref: string, options: BundleOptions): Promise<Bundle> {
  const env = options.env ?? process.env;
  try {
    return await loadBundle(ref, {
      baseDir: options.cwd,
      roots: [options.cwd],
      searchPaths: bundleSearchPaths(options.cwd, env),
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
 * when it starts: only `bundle show`, which starts none, prints them).
 */
export function bundlePlan(
  bundle: Bundle,
  env: NodeJS.ProcessEnv = process.env,
): {
  data: Record<string, unknown>;
  warnings: string[];
  validator: string[];
} {
  const data = expandEnv(bundlePlanData(bundle), env);
  return {
    data,
    warnings: [...bundle.warnings, ...missingContextFiles(bundle)],
    validator: planWarnings(data),
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
  const bundle = await loadCliBundle(ref, options);
  const { data, warnings, validator } = bundlePlan(bundle, options.env);
  for (const warning of [...warnings, ...validator]) display.warn(warning);
  const reason = notRunnableReason(bundle);
  if (reason !== undefined) display.warn(`not runnable on its own: ${reason}`);
  if (options.instructions) {
    const prompt = await buildSystemPrompt(
      bundle,
      promptOptions(options.cwd, (m) => display.warn(m), options.env),
    );
    out.write(options.json ? `${JSON.stringify({ instructions: prompt ?? null })}\n` : `${prompt ?? ''}\n`);
    return EXIT_OK;
  }
  out.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : stringify(data, { lineWidth: 0 }));
  return EXIT_OK;
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

const ORIGINS = ['project', 'user', 'shipped'];

/** The bundles found by name: each search folder's, then the well-known names not shadowed. */
export function findBundles(cwd: string, env: NodeJS.ProcessEnv = process.env): BundleListing[] {
  const found: BundleListing[] = [];
  const seen = new Set<string>();
  bundleSearchPaths(cwd, env).forEach((dir, i) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
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
      if (seen.has(name)) continue;
      seen.add(name);
      found.push({
        name,
        origin: ORIGINS[i] ?? 'search path',
        location: file,
        description: describeFile(file),
      });
    }
  });
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
  options: { cwd: string; json: boolean; env?: NodeJS.ProcessEnv },
  display: Display,
  out: NodeJS.WritableStream,
): number {
  const env = options.env ?? process.env;
  const rows = findBundles(options.cwd, env);
  if (options.json) {
    out.write(
      `${JSON.stringify({ bundles: rows, search_paths: bundleSearchPaths(options.cwd, env) }, null, 2)}\n`,
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
    display.colors.dim(`Searched, first hit wins: ${bundleSearchPaths(options.cwd, env).join(', ')}`),
  );
  return EXIT_OK;
}
