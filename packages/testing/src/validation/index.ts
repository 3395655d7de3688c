/**
 * @amplifier/testing/validation: check that a module will work before a session
 * loads it. `validateModule(pathOrId, { type })` runs structural checks (it is
 * found, imports, exports `mount`, the loader accepts it) and behavioural ones
 * per type (mount into a test coordinator and exercise what got mounted), and
 * returns a `ValidationResult`. It never throws for a broken module.
 *
 * ```ts
 * const result = await validateModule('./modules/tool-hello', { type: 'tool' });
 * console.log(result.report());
 * process.exitCode = result.passed ? 0 : 1;
 * ```
 */
import path from 'node:path';
import type { ModuleType } from '@amplifier/core';
import { ModuleLoader, silentLogger } from '@amplifier/core';
import { checkExports, checkType, loadModule, moduleTarget, resolveModule } from './module-checks.js';
import { checkProtocol } from './protocol-checks.js';
import { ValidationResult } from './result.js';

export type { ValidationCheck, ValidationSeverity } from './result.js';
export { ValidationResult } from './result.js';

export interface ValidateModuleOptions {
  /** The type to validate as. Default: the `"amplifier".type` of the module's package.json. */
  type?: ModuleType;
  /** Passed to `mount` (default `{}`). A provider usually needs its credentials here. */
  config?: Record<string, unknown>;
  /** Where ids, package names and relative paths are resolved from (default: cwd). */
  baseDir?: string;
  /** The `session.working_dir` capability the module sees (default: `baseDir`). */
  workingDir?: string;
  /** Folders of module packages searched by id (default: `AMPLIFIER_MODULES`). */
  searchPaths?: readonly string[];
  /** Limit for each call into the module: mount, execute, ... (default 10,000 ms). */
  timeoutMs?: number;
}

/** One-line descriptions of the module types (`amplifier module types`). */
export const MODULE_TYPE_DESCRIPTIONS: Readonly<Record<ModuleType, string>> = {
  provider: 'LLM backends',
  tool: 'Agent capabilities',
  hook: 'Observability and control',
  orchestrator: 'Execution strategies',
  context: 'Memory management',
  resolver: 'Module source resolution',
};

/**
 * Validate a module given as a path (`./dir`, `/abs/entry.js`, `file:` URL),
 * a package name (`@acme/amplifier-tool`) or a module id (`tool-bash`, found
 * the way a session finds it). Checks, in order: `module_resolvable`,
 * `module_manifest`, `module_type`, `module_importable`, `mount_exists`,
 * `mount_signature`, `on_session_ready`, `module_loadable`, then
 * `protocol_compliance` and the per-type checks (`tool_*`, `provider_*`,
 * `orchestrator_*`, `context_*`, `hook_emit`, `behaviour: ...`), then
 * `cleanup`. Stops at the first structural failure that makes the rest
 * meaningless.
 */
export async function validateModule(
  pathOrId: string,
  options: ValidateModuleOptions = {},
): Promise<ValidationResult> {
  const baseDir = path.resolve(options.baseDir ?? process.cwd());
  const result = new ValidationResult(pathOrId, options.type);
  const loader = new ModuleLoader({
    baseDir,
    logger: silentLogger,
    ...(options.searchPaths !== undefined && { searchPaths: options.searchPaths }),
  });
  const found = await resolveModule(result, loader, moduleTarget(pathOrId, baseDir));
  if (found === undefined) return result;
  const type = checkType(result, found.resolved, options.type);
  result.moduleType = type ?? found.resolved.package?.manifest.type ?? options.type;
  if (type === undefined) return result;
  const exports = await checkExports(result, found.resolved.entry);
  if (exports === undefined) return result;
  const config = options.config ?? {};
  const loaded = await loadModule(result, loader, found.target, type, config);
  if (loaded === undefined) return result;
  await checkProtocol(result, type, loaded, {
    config,
    workingDir: options.workingDir ?? baseDir,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  return result;
}
