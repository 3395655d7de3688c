/**
 * From config entries to runnable tools: find each tool folder (a path or a
 * package in node_modules), check its manifest, resolve the interpreter and
 * the environment. A tool that fails is reported with every reason and the
 * others still load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findPackageDir } from '@amplifier/core';
import { type AgentPmConfig, toolEnvironment } from './config.js';
import { checkManifest } from './lint.js';
import { type AgentManifest, MANIFEST_FILE, modelToolName, type Severity } from './manifest.js';

/** A problem met while loading one configured tool. */
export interface LoadProblem {
  /** The `tools` entry as configured. */
  source: string;
  /** The tool folder, once found. */
  folder?: string;
  /** JSON path inside agent.json ('' when the problem is not about one field). */
  path: string;
  message: string;
  severity: Severity;
}

/** A manifest ready to run. */
export interface PreparedTool {
  /** The name the model sees (`word-count` -> `word_count`). */
  name: string;
  manifest: AgentManifest;
  folder: string;
  source: string;
  /** Absolute path of the interpreter. */
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  serial: boolean;
}

export interface PrepareOptions {
  /** Base for relative paths and package lookup. */
  baseDir: string;
  hostEnv: NodeJS.ProcessEnv;
  /** Tool names already taken (mounted by other modules). */
  taken?: (name: string) => boolean;
}

/** Load every configured tool; never throws. */
export function prepareTools(
  config: AgentPmConfig,
  options: PrepareOptions,
): { tools: PreparedTool[]; problems: LoadProblem[] } {
  const tools: PreparedTool[] = [];
  const problems: LoadProblem[] = [];
  const folders = new Map<string, string>();
  const names = new Map<string, string>();
  for (const entry of config.tools) {
    const source = entry.source;
    const report = (severity: Severity, at: string, message: string, folder?: string): void => {
      problems.push({ source, ...(folder ? { folder } : {}), path: at, message, severity });
    };
    const located = locateToolFolder(source, options.baseDir);
    if (typeof located !== 'string') {
      report('error', '', located.error);
      continue;
    }
    const check = checkManifest(located);
    const folder = check.folder;
    for (const p of check.problems) report(p.severity, p.path, p.message, folder);
    if (check.manifest === undefined) continue;
    const manifest = check.manifest;
    const name = modelToolName(manifest.name);
    const fail = (at: string, message: string): void => report('error', at, message, folder);

    const sameFolder = folders.get(folder);
    if (sameFolder !== undefined) {
      fail('', `the tool folder is already loaded (as '${sameFolder}'); listed twice in tools`);
      continue;
    }
    const other = names.get(name);
    if (other !== undefined) {
      fail('name', `another tool is already named '${name}' (from ${other}); names must be unique`);
      continue;
    }
    if (options.taken?.(name)) {
      fail('name', `a tool named '${name}' is already mounted by another module`);
      continue;
    }
    const environment = toolEnvironment(manifest, config, options.hostEnv, entry.pass_env);
    const withheld = new Set(environment.withheld);
    if (environment.env === undefined) {
      for (const variable of environment.missing) {
        fail(
          `environment.vars.${variable}`,
          withheld.has(variable)
            ? `required variable ${variable} is secret-named, so the host's value is passed only when you opt in: add it to the module's config pass_env (pass_env: [${variable}]) or set it in the config env (env: { ${variable}: ... })`
            : `required variable ${variable} has no value: set it in the module's config env (env: { ${variable}: ... }) or in the host environment`,
        );
      }
      continue;
    }
    for (const variable of withheld) {
      report(
        'warning',
        `environment.vars.${variable}`,
        `the host's ${variable} is not passed to the tool (secret-named); add it to the module's config pass_env to pass it`,
        folder,
      );
    }
    for (const variable of environment.unset) {
      report(
        'warning',
        '',
        `${variable} is listed in this tool's pass_env but has no value (not in the config env, not set on the host); the tool runs without it`,
        folder,
      );
    }
    const found = findInterpreter(manifest.entrypoint.command, environment.env.PATH ?? '');
    if (found?.alias) {
      report(
        'warning',
        'entrypoint.command',
        `${manifest.entrypoint.command} is not on PATH; running ${found.command} instead (the same runtime for AgentPM)`,
        folder,
      );
    }
    const command = found?.command;
    if (command === undefined) {
      fail(
        'entrypoint.command',
        path.isAbsolute(manifest.entrypoint.command)
          ? `${manifest.entrypoint.command} is not an executable file on this host`
          : `${manifest.entrypoint.command} was not found on PATH (${environment.env.PATH ?? 'unset'})`,
      );
      continue;
    }
    folders.set(folder, source);
    names.set(name, folder);
    tools.push({
      name,
      manifest,
      folder,
      source,
      command,
      args: [...manifest.entrypoint.args],
      cwd: check.cwd ?? folder,
      env: environment.env,
      timeoutMs: manifest.entrypoint.timeout_ms ?? config.timeout_ms,
      serial: manifest.execution?.serial === true,
    });
  }
  return { tools, problems };
}

/**
 * The folder of a `tools` entry: an absolute path or one starting with `./` or
 * `../` is a folder (relative to `baseDir`); anything else is first a package
 * name looked up in node_modules from `baseDir`, then a folder under `baseDir`.
 */
export function locateToolFolder(source: string, baseDir: string): string | { error: string } {
  const isPath = path.isAbsolute(source) || /^\.\.?([\\/]|$)/.test(source);
  if (isPath) return path.resolve(baseDir, source);
  const packageDir = findPackageDir(source, baseDir);
  if (packageDir !== undefined) {
    if (fs.existsSync(path.join(packageDir, MANIFEST_FILE))) return packageDir;
    return { error: `package ${source} (${packageDir}) ships no ${MANIFEST_FILE}` };
  }
  const folder = path.resolve(baseDir, source);
  if (fs.existsSync(path.join(folder, MANIFEST_FILE))) return folder;
  return {
    error: `tool '${source}' not found: no package ${source} in node_modules from ${baseDir} and no ${MANIFEST_FILE} in ${folder}`,
  };
}

/** The bare interpreter names AgentPM treats as the same runtime (its SDK's interpreter aliases). */
const INTERPRETER_ALIASES: Readonly<Record<string, string>> = {
  python: 'python3',
  python3: 'python',
  node: 'nodejs',
  nodejs: 'node',
};

/**
 * The interpreter to run: `findExecutable(command)`, else, for a bare
 * `python`/`python3`/`node`/`nodejs`, its alias (`python` is often missing
 * where `python3` exists). `alias` is true when the alias was taken.
 */
export function findInterpreter(
  command: string,
  pathVar: string,
): { command: string; alias: boolean } | undefined {
  const direct = findExecutable(command, pathVar);
  if (direct !== undefined) return { command: direct, alias: false };
  const alias = Object.hasOwn(INTERPRETER_ALIASES, command) ? INTERPRETER_ALIASES[command] : undefined;
  const viaAlias = alias === undefined ? undefined : findExecutable(alias, pathVar);
  return viaAlias === undefined ? undefined : { command: viaAlias, alias: true };
}

/** An absolute command if it is an executable file, or a bare name found in PATH's absolute folders. */
export function findExecutable(command: string, pathVar: string): string | undefined {
  if (path.isAbsolute(command)) return isExecutableFile(command) ? command : undefined;
  for (const dir of pathVar.split(path.delimiter)) {
    // Relative PATH entries would depend on the cwd: skipped.
    if (!path.isAbsolute(dir)) continue;
    const full = path.join(dir, command);
    if (isExecutableFile(full)) return full;
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** One line for the log: `word-count (/srv/tools/wc): entrypoint.cwd: ...`. */
export function describeProblem(problem: LoadProblem): string {
  const where = problem.folder ? `${problem.source} (${problem.folder})` : problem.source;
  return `${where}: ${problem.path ? `${problem.path}: ` : ''}${problem.message}`;
}
