/**
 * Modules passed as objects (`SessionOptions.modules`): what an `import`
 * statement gives, mounted without the loader ever looking on disk, so an app
 * bundles and runs where there is no `node_modules`.
 */
import type { LoadedModule, LoadOptions, ModuleExports, ModuleLoaderLike, Tool } from './contracts.js';
import { ModuleLoadError } from './errors.js';
import type { ModuleType } from './module-types.js';
import { ownConfig } from './plain-data.js';

/**
 * A module given as an object: its namespace (`import * as loopBasic from
 * '@amplifier/loop-basic'`), an object with `mount` (and `onSessionReady`), a
 * default export holding those, or a `Tool` (what `defineTool` returns, mounted
 * as is, in the `tools` section only).
 */
export type ModuleObject = ModuleExports | { readonly default: ModuleExports } | Tool;

/**
 * A loader that serves the ids in `modules` from their objects, and every
 * other id from `fallback()` (made on the first such id, never before).
 */
export function moduleObjectLoader(
  modules: Readonly<Record<string, ModuleObject>>,
  fallback: () => ModuleLoaderLike,
): ModuleLoaderLike {
  let disk: ModuleLoaderLike | undefined;
  return {
    async load(id, config = {}, options = {}) {
      if (!Object.hasOwn(modules, id)) {
        disk ??= fallback();
        return disk.load(id, config, options);
      }
      return loadObject(id, modules[id], config, options);
    },
    cleanup() {
      disk?.cleanup?.();
    },
  };
}

function loadObject(
  id: string,
  object: unknown,
  config: Record<string, unknown>,
  options: LoadOptions,
): LoadedModule {
  const own = ownConfig(config, id);
  if (isTool(object)) {
    const tool = object;
    refuse(id, options.type, 'tool', 'a tool object');
    if (Object.keys(own).length > 0) {
      throw new ModuleLoadError(
        id,
        `Module '${id}' is a tool object, which takes no config, but its mount plan entry has config keys ${Object.keys(own).join(', ')}; configure the tool when you create it`,
        { code: 'MODULE_INCOMPATIBLE' },
      );
    }
    return {
      id,
      type: 'tool',
      mount: async (coordinator) => {
        coordinator.mount('tools', tool);
      },
    };
  }
  const exports = exportsOf(id, object);
  const loaded: LoadedModule = {
    id,
    type: options.type,
    mount: async (coordinator) => (await exports.mount(coordinator, own)) ?? undefined,
  };
  const ready = exports.onSessionReady;
  if (typeof ready === 'function') {
    loaded.onSessionReady = async (coordinator) => {
      await ready.call(exports, coordinator);
    };
  }
  return loaded;
}

function isTool(value: unknown): value is Tool {
  const tool = value as Partial<Tool> & { mount?: unknown };
  return (
    typeof tool === 'object' &&
    tool !== null &&
    typeof tool.name === 'string' &&
    typeof tool.execute === 'function' &&
    tool.mount === undefined
  );
}

function refuse(id: string, expected: ModuleType | undefined, actual: ModuleType, what: string): void {
  if (expected === undefined || expected === actual) return;
  throw new ModuleLoadError(
    id,
    `Module '${id}' is ${what}, but the mount plan uses it as a ${expected}; move it to the tools section`,
    { code: 'MODULE_INCOMPATIBLE' },
  );
}

/** The object with `mount`: the object itself or its `default`; else a clear error. */
function exportsOf(id: string, object: unknown): ModuleExports {
  const candidates = [object, (object as { default?: unknown } | null)?.default];
  for (const candidate of candidates) {
    if (typeof (candidate as Partial<ModuleExports> | null)?.mount === 'function') {
      return candidate as ModuleExports;
    }
  }
  const found = object === null ? 'null' : Array.isArray(object) ? 'an array' : typeof object;
  throw new ModuleLoadError(
    id,
    `Module '${id}' given in options.modules is ${found === 'object' ? 'an object without a mount function' : found}: pass the module's namespace (import * as m from '...'), an object with mount(coordinator, config), or a tool from defineTool`,
  );
}
