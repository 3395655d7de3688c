/**
 * `compose(a, b, ...)`: the reference merge of bundles, later wins (A5).
 * - name, version, description, instruction, base path: the later non-empty value;
 * - `session`, `spawn` (and module `config`): deep merge, lists concatenated without duplicates;
 * - `providers`, `tools`, `hooks`: by `id` (else `module`): config deep-merged, source replaced,
 *   new ids appended; entries with neither are dropped;
 * - `agents`: the same name replaces the earlier agent whole;
 * - `context`: accumulates (the same key: the later path).
 */
import { isPlainObject, setOwn } from '@amplifier/core';
import type { BundleData, ContextEntry, ModuleEntry } from './parse.js';

/** Sorted-key JSON: how two list items are compared (type and value). */
function identity(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!isPlainObject(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) setOwn(sorted, key, (v as Record<string, unknown>)[key]);
    return sorted;
  });
}

/** Deep merge: mappings merge key by key, lists concatenate without duplicates (parent first), scalars are replaced. */
export function deepMerge(parent: unknown, child: unknown): unknown {
  if (isPlainObject(parent) && isPlainObject(child)) {
    const out: Record<string, unknown> = { ...(parent as Record<string, unknown>) };
    for (const [key, value] of Object.entries(child as Record<string, unknown>)) {
      setOwn(out, key, Object.hasOwn(out, key) ? deepMerge(out[key], value) : value);
    }
    return out;
  }
  if (Array.isArray(parent) && Array.isArray(child)) {
    const seen = new Set(parent.map(identity));
    const out = [...parent];
    for (const item of child) {
      const key = identity(item);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(item);
    }
    return out;
  }
  return child;
}

function mergeKey(entry: ModuleEntry): string | undefined {
  return entry.id ?? entry.module;
}

/** Module lists merged by id: config deep-merged, source replaced, new ids appended. */
export function mergeModules(parent: readonly ModuleEntry[], child: readonly ModuleEntry[]): ModuleEntry[] {
  const out: ModuleEntry[] = [];
  const index = new Map<string, number>();
  const add = (entry: ModuleEntry): void => {
    const key = mergeKey(entry);
    if (key === undefined) return;
    const at = index.get(key);
    if (at === undefined) {
      index.set(key, out.length);
      out.push({ ...entry });
      return;
    }
    const earlier = out[at] as ModuleEntry;
    const merged: ModuleEntry = { ...earlier, ...entry };
    if (earlier.config !== undefined || entry.config !== undefined) {
      merged.config = deepMerge(earlier.config ?? {}, entry.config ?? {}) as Record<string, unknown>;
    }
    if (entry.source === undefined && earlier.source !== undefined) merged.source = earlier.source;
    out[at] = merged;
  };
  for (const entry of parent) add(entry);
  for (const entry of child) add(entry);
  return out;
}

function mergeContext(parent: readonly ContextEntry[], child: readonly ContextEntry[]): ContextEntry[] {
  const out = [...parent];
  for (const entry of child) {
    const at = out.findIndex((e) => e.key === entry.key);
    if (at === -1) out.push(entry);
    else out[at] = entry;
  }
  return out;
}

function later(a: string, b: string): string {
  return b !== '' ? b : a;
}

/** Compose two bundles: `b` is applied over `a`. */
function composeTwo(a: BundleData, b: BundleData): BundleData {
  const agents: Record<string, Record<string, unknown>> = { ...a.agents };
  for (const [name, agent] of Object.entries(b.agents)) setOwn(agents, name, agent);
  return {
    name: later(a.name, b.name),
    version: later(a.version, b.version),
    description: later(a.description, b.description),
    namespaceRoot: b.namespaceRoot ?? a.namespaceRoot,
    includes: b.includes,
    session: deepMerge(a.session, b.session) as Record<string, unknown>,
    spawn: deepMerge(a.spawn, b.spawn) as Record<string, unknown>,
    providers: mergeModules(a.providers, b.providers),
    tools: mergeModules(a.tools, b.tools),
    hooks: mergeModules(a.hooks, b.hooks),
    agents,
    context: mergeContext(a.context, b.context),
    instruction: b.instruction ?? a.instruction,
    instructionFile: b.instruction === undefined ? a.instructionFile : b.instructionFile,
    basePath: later(a.basePath, b.basePath),
    source: b.source,
    warnings: [...a.warnings, ...b.warnings.filter((w) => !a.warnings.includes(w))],
  };
}

/** Compose bundles in order; the last one wins where values conflict. */
export function compose(first: BundleData, ...rest: BundleData[]): BundleData {
  return rest.reduce(composeTwo, first);
}
