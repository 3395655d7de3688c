/**
 * @amplifier/schema: JSON Schema for modules and apps. `compileSchema`
 * validates any schema (tool input schemas, module configs) with closures
 * for the common subset and ajv for the rest and for error messages;
 * `defineModuleConfig` / `readModuleConfig` read a module's config by the
 * config policy; `FromSchema` (core's, re-exported) derives a config's type
 * from its `const` schema.
 * Core's own data schemas (`checkData`) are checked by core itself.
 */

export type { FromSchema } from '@amplifier/core';
export type { CompileOptions, DataValidator } from './compile.js';
export { ajvLoaded, compileSchema, formatAjvErrors, jsonPointerToPath, sharedAjv } from './compile.js';
export type { ConfigOf, ModuleConfig, ModuleConfigPolicy, ModuleConfigSpec } from './module-config.js';
export {
  configDurationMs,
  configKeys,
  defineModuleConfig,
  readModuleConfig,
  warnConfigKey,
} from './module-config.js';
