/**
 * Structural checks of a module: it can be found (path, package name or id),
 * its declared type matches, it imports, it exports `mount` (and optionally
 * `onSessionReady`) with a usable signature, and the loader accepts it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LoadedModule, ModuleExports, ModuleLoader, ResolvedModule } from '@amplifier/core';
import { AmplifierError, errorMessage, findPackageDir, MODULE_TYPES, type ModuleType } from '@amplifier/core';
import type { ValidationResult } from './result.js';

/** How a target names its module: a path, a package name, or a module id. */
export interface ModuleTarget {
  /** The module id to load (for a path: a placeholder until the package.json says otherwise). */
  id: string;
  /** The loader's source hint (a path or package name), when the target is not an id. */
  source: string | undefined;
}

function isPathLike(target: string): boolean {
  return (
    target.startsWith('.') ||
    target.startsWith('~') ||
    target.startsWith('file:') ||
    path.isAbsolute(target) ||
    (!target.startsWith('@') && (target.includes('/') || target.includes(path.sep)))
  );
}

/** The `"amplifier".module` a package directory declares, if it has a readable one. */
function declaredId(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      amplifier?: { module?: unknown };
    };
    const id = pkg?.amplifier?.module;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Classify what the user gave: `./dir`, `/abs/file.js`, `file:` URL, `@scope/pkg`, or an id. */
export function moduleTarget(target: string, baseDir: string): ModuleTarget {
  if (isPathLike(target)) {
    const source = target.startsWith('file:')
      ? target
      : path.resolve(baseDir, target.replace(/^~(?=$|[/\\])/, process.env.HOME ?? '~'));
    const local = source.startsWith('file:') ? fileURLToPath(source) : source;
    const base = path.basename(local.replace(/[/\\]+$/, ''));
    const id = declaredId(local) ?? (base.replace(/\.(m?js|cjs)$/, '') || 'module');
    return { id, source };
  }
  if (target.startsWith('@') && target.includes('/')) {
    const id = declaredId(findPackageDir(target, baseDir)) ?? target.slice(target.indexOf('/') + 1);
    return { id, source: target };
  }
  return { id: target, source: undefined };
}

/** Check `module_resolvable`: the loader finds it. Returns where, or undefined (check failed). */
export async function resolveModule(
  result: ValidationResult,
  loader: ModuleLoader,
  target: ModuleTarget,
): Promise<{ target: ModuleTarget; resolved: ResolvedModule } | undefined> {
  try {
    const resolved = await loader.resolve(
      target.id,
      target.source === undefined ? {} : { source: target.source },
    );
    result.pass('module_resolvable', `found ${resolved.entry} (via ${resolved.via})`);
    return { target: { ...target, id: resolved.id }, resolved };
  } catch (error) {
    // An id that is not a module id may still be an unscoped package name.
    if (
      target.source === undefined &&
      AmplifierError.is(error, 'MODULE_NOT_FOUND') &&
      findPackageDir(target.id, loader.baseDir) !== undefined
    ) {
      const id = declaredId(findPackageDir(target.id, loader.baseDir)) ?? target.id;
      return resolveModule(result, loader, { id, source: target.id });
    }
    let message = errorMessage(error);
    if (target.source === undefined && existsSync(path.resolve(loader.baseDir, target.id))) {
      message += `\n(a folder named '${target.id}' exists here: pass ./${target.id} to validate it)`;
    }
    result.fail('module_resolvable', message);
    return undefined;
  }
}

/**
 * Check `module_type` (declared type vs the requested one) and, for a module
 * without a package, `module_manifest`. Returns the type to validate as.
 */
export function checkType(
  result: ValidationResult,
  resolved: ResolvedModule,
  requested: ModuleType | undefined,
): ModuleType | undefined {
  if (requested !== undefined && !MODULE_TYPES.includes(requested)) {
    result.fail(
      'module_type',
      `unknown module type '${requested}' (expected one of ${MODULE_TYPES.join(', ')})`,
    );
    return undefined;
  }
  const declared = resolved.package?.manifest.type;
  if (resolved.package === undefined) {
    result.fail(
      'module_manifest',
      `${resolved.entry} is not in a package with an "amplifier" field; sessions can load it only through an explicit source path. Add "amplifier": { "module": "${resolved.id}", "type": "${requested ?? '<type>'}" } to a package.json to make it discoverable`,
      'warning',
    );
  } else {
    result.pass(
      'module_manifest',
      `${resolved.package.packageName}@${resolved.package.version} declares "amplifier": { "module": "${resolved.package.manifest.module}", "type": "${declared}" }`,
      'info',
    );
  }
  if (declared !== undefined && requested !== undefined && declared !== requested) {
    result.fail(
      'module_type',
      `the package declares type '${declared}' but it was validated as '${requested}'; validate it as a ${declared} or fix "amplifier.type"`,
    );
    return undefined;
  }
  const type = requested ?? declared;
  if (type === undefined) {
    result.fail(
      'module_type',
      'cannot tell the module type: it has no "amplifier" field; pass the type (--type tool)',
    );
    return undefined;
  }
  result.pass('module_type', declared !== undefined ? `${type} (declared)` : `${type} (as requested)`);
  return type;
}

/**
 * Checks `module_importable`, `mount_exists`, `mount_signature` and
 * `on_session_ready`. Returns the module's exports, or undefined when it
 * cannot be mounted at all.
 */
export async function checkExports(
  result: ValidationResult,
  entry: string,
): Promise<ModuleExports | undefined> {
  let ns: Record<string, unknown>;
  try {
    ns = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
    result.pass('module_importable', `imported ${entry}`);
  } catch (error) {
    result.fail('module_importable', `failed to import ${entry}: ${errorMessage(error)}`);
    return undefined;
  }
  const fallback = ns.default as Record<string, unknown> | undefined;
  const exports =
    typeof ns.mount === 'function'
      ? ns
      : fallback !== null && typeof fallback === 'object' && typeof fallback.mount === 'function'
        ? fallback
        : undefined;
  if (exports === undefined) {
    const found = 'mount' in ns ? `mount is a ${typeof ns.mount}, not a function` : 'no mount export';
    result.fail(
      'mount_exists',
      `${found}: export async function mount(coordinator, config) { ... } (returning an optional cleanup)`,
    );
    return undefined;
  }
  result.pass('mount_exists', exports === ns ? 'exports mount' : 'default export has mount');
  const mount = exports.mount as (...args: unknown[]) => unknown;
  if (mount.length >= 1) {
    result.pass('mount_signature', `mount takes ${mount.length} parameter(s) (coordinator, config)`);
  } else {
    result.fail(
      'mount_signature',
      'mount declares no parameters; it is called as mount(coordinator, config) (a rest or defaulted first parameter also counts as none)',
    );
  }
  const ready = exports.onSessionReady;
  if (ready === undefined) {
    result.pass('on_session_ready', 'not exported (optional)', 'info');
  } else if (typeof ready !== 'function') {
    result.fail(
      'on_session_ready',
      `onSessionReady is a ${typeof ready}; export a function (coordinator) => ...`,
    );
  } else if (ready.length < 1) {
    result.fail(
      'on_session_ready',
      'onSessionReady declares no parameters; it is called with the coordinator',
      'warning',
    );
  } else {
    result.pass('on_session_ready', 'onSessionReady(coordinator) exported');
  }
  return exports as unknown as ModuleExports;
}

/** Check `module_loadable`: the loader's own checks (type, `@amplifier/core` peer range) pass. */
export async function loadModule(
  result: ValidationResult,
  loader: ModuleLoader,
  target: ModuleTarget,
  type: ModuleType,
  config: Record<string, unknown>,
): Promise<LoadedModule | undefined> {
  try {
    const loaded = await loader.load(target.id, config, {
      type,
      ...(target.source !== undefined && { source: target.source }),
    });
    result.pass(
      'module_loadable',
      loaded.packageName
        ? `loads through ModuleLoader (${loaded.packageName}@${loaded.version}; @amplifier/core peer range ok)`
        : 'loads through ModuleLoader',
    );
    return loaded;
  } catch (error) {
    result.fail('module_loadable', errorMessage(error));
    return undefined;
  }
}
