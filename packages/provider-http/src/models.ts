/**
 * What a provider knows about models: a table of limits looked up by exact
 * id, routed id (`openai/gpt-4o`) or dated snapshot (`gpt-4o-2024-08-06`),
 * overridden by config and by what the server's model listing reports.
 */
import type { ModelInfo } from '@amplifier/core';

/** Limits of a model, as config `models` gives them. */
export interface ModelLimits {
  context_window: number;
  max_output_tokens: number;
  display_name?: string;
  capabilities?: string[];
}

/** What a dated snapshot adds to a model id: `20250929`, `2024-08-06`, or `latest`. */
const SNAPSHOT_SUFFIX = /^(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The entry for `model` in `table`: the exact id, else the id without a
 * routing prefix (`anthropic/claude-sonnet-4-5`), else the longest key the id
 * extends with a dated suffix (`gpt-4o-2024-08-06` -> `gpt-4o`, but
 * `gpt-4o-mini` is not `gpt-4o` and `claude-sonnet-4-5` is not `claude-sonnet-4`).
 */
export function lookupModel<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  if (Object.hasOwn(table, bare)) return table[bare];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (bare.startsWith(`${key}-`) && SNAPSHOT_SUFFIX.test(bare.slice(key.length + 1))) {
      if (best === undefined || key.length > best.length) best = key;
    }
  }
  return best === undefined ? undefined : table[best];
}

/** A ModelInfo from limits; `capabilities` when the limits name none. */
export function modelInfo(id: string, limits: ModelLimits, capabilities: readonly string[]): ModelInfo {
  return {
    id,
    display_name: limits.display_name ?? id,
    context_window: limits.context_window,
    max_output_tokens: limits.max_output_tokens,
    capabilities: [...(limits.capabilities ?? capabilities)],
    defaults: {},
  };
}

/** What a provider knows about its models before any config or server says more. */
export interface ModelTable {
  /** Well-known models. */
  builtin: Readonly<Record<string, ModelLimits>>;
  /** Limits assumed for a model nobody described. */
  unknown: Readonly<ModelLimits>;
  /** Capabilities of a model whose limits name none. */
  capabilities: readonly string[];
  /** The limits one entry of the server's model listing reports (the names differ per API). */
  serverLimits: (entry: Record<string, unknown>) => Partial<ModelLimits>;
}

/** Where an entry of a server's model listing reports limits: dot paths (`meta.n_ctx`), the first set one wins. */
export interface ListedLimitFields {
  /** Context window: the first positive integer among these. */
  context: readonly string[];
  /** Max output tokens: the first positive integer among these. */
  output: readonly string[];
  /** Display name: the first non-empty string among these. */
  name: readonly string[];
}

/** A `ModelTable.serverLimits` that reads an entry's limits where `fields` says. */
export function listedLimits(fields: ListedLimitFields): ModelTable['serverLimits'] {
  const at = (entry: Record<string, unknown>, path: string): unknown => {
    let value: unknown = entry;
    for (const key of path.split('.')) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
  const first = <T>(entry: Record<string, unknown>, paths: readonly string[], ok: (v: unknown) => v is T) =>
    paths.map((path) => at(entry, path)).find(ok);
  const positive = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  return (entry) => {
    const limits: Partial<ModelLimits> = {};
    const context = first(entry, fields.context, positive);
    const output = first(entry, fields.output, positive);
    const name = first(entry, fields.name, text);
    if (context !== undefined) limits.context_window = context;
    if (output !== undefined) limits.max_output_tokens = output;
    if (name !== undefined) limits.display_name = name;
    return limits;
  };
}

/** What one provider instance's catalog is built from. */
export interface ModelCatalogOptions extends ModelTable {
  /** The configured model (`getModelInfo()` without an id). */
  defaultModel: string;
  /** Config `models`: wins over everything. */
  overrides: Readonly<Record<string, Partial<ModelLimits>>>;
  /** List the built-in models too when the server cannot list them. */
  listBuiltin: boolean;
}

/**
 * The models one provider instance knows: config `models` over what the
 * server listed over the built-in table over the unknown-model defaults.
 */
export class ModelCatalog {
  readonly #options: ModelCatalogOptions;
  readonly #server = new Map<string, Partial<ModelLimits>>();
  #listing: Promise<ModelInfo[]> | undefined;

  constructor(options: ModelCatalogOptions) {
    this.#options = options;
  }

  /** Limits of `model` (default: the configured one). */
  info(model: string = this.#options.defaultModel): ModelInfo {
    const { unknown, builtin, overrides, capabilities } = this.#options;
    return modelInfo(
      model,
      {
        ...unknown,
        ...lookupModel(builtin, model),
        ...this.#server.get(model),
        ...lookupModel(overrides, model),
      },
      capabilities,
    );
  }

  /**
   * The models `fetchEntries` returns (the server's listing, cached once it
   * worked), or, when it fails, the configured ones and (with `listBuiltin`)
   * the built-in ones; `onError` hears why.
   */
  list(
    fetchEntries: () => Promise<Record<string, unknown>[]>,
    onError: (error: unknown) => void,
  ): Promise<ModelInfo[]> {
    this.#listing ??= fetchEntries().then(
      (entries) => {
        const models: ModelInfo[] = [];
        for (const entry of entries) {
          if (typeof entry?.id !== 'string') continue;
          const limits = this.#options.serverLimits(entry);
          if (Object.keys(limits).length > 0) this.#server.set(entry.id, limits);
          models.push(this.info(entry.id));
        }
        return models;
      },
      (error: unknown) => {
        this.#listing = undefined;
        onError(error);
        const { defaultModel, overrides, builtin, listBuiltin } = this.#options;
        const ids = new Set([defaultModel, ...Object.keys(overrides)]);
        if (listBuiltin) for (const id of Object.keys(builtin)) ids.add(id);
        return [...ids].map((id) => this.info(id));
      },
    );
    return this.#listing;
  }
}
