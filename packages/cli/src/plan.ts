/**
 * Mount plans for the CLI: the built-in default plan, loading a plan file
 * (YAML or JSON) with `${VAR}` / `${VAR:default}` expansion, the provider
 * choice, and the command-line overrides (--provider, --model, --max-iterations).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  AmplifierError,
  type DataError,
  MAX_DATA_DEPTH,
  type ModuleSpec,
  type MountPlan,
  type MountPlanError,
  ownData,
  ownMountPlan,
  parseMountPlan,
  setOwn,
  validateMountPlan,
} from '@amplifier/core';
import { demoResponder } from './demo.js';
import { CliError } from './errors.js';

/** The providers the CLI knows by short name. */
export const PROVIDERS: Readonly<Record<string, string>> = {
  anthropic: 'provider-anthropic',
  openai: 'provider-openai',
  gemini: 'provider-gemini',
  azure: 'provider-azure-openai',
  bedrock: 'provider-bedrock',
  mock: 'provider-mock',
};

/** What the CLI picked as the model provider, and why. */
export interface ProviderChoice {
  /** Short name (`anthropic`, `openai`, `mock`) or the module id of a plan's provider. */
  name: string;
  /** True when provider-mock plays the built-in offline demo. */
  demo: boolean;
  /** Human-readable reason, for `--verbose` and metadata. */
  reason: string;
}

/**
 * The provider to use when none is given: `ANTHROPIC_API_KEY` → anthropic,
 * `OPENAI_API_KEY` or `OPENAI_BASE_URL` → openai, `GOOGLE_API_KEY` or
 * `GEMINI_API_KEY` → gemini, `AZURE_OPENAI_ENDPOINT`, `AZURE_OPENAI_BASE_URL`
 * or `AZURE_OPENAI_API_KEY` → azure, `AWS_BEARER_TOKEN_BEDROCK` or
 * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` → bedrock (explicit Bedrock signals only:
 * AWS credentials alone serve many services and pick nothing), otherwise the
 * offline demo.
 */
export function chooseProvider(env: NodeJS.ProcessEnv = process.env): ProviderChoice {
  if (env.ANTHROPIC_API_KEY) return { name: 'anthropic', demo: false, reason: 'ANTHROPIC_API_KEY is set' };
  if (env.OPENAI_API_KEY) return { name: 'openai', demo: false, reason: 'OPENAI_API_KEY is set' };
  if (env.OPENAI_BASE_URL) return { name: 'openai', demo: false, reason: 'OPENAI_BASE_URL is set' };
  if (env.GOOGLE_API_KEY) return { name: 'gemini', demo: false, reason: 'GOOGLE_API_KEY is set' };
  if (env.GEMINI_API_KEY) return { name: 'gemini', demo: false, reason: 'GEMINI_API_KEY is set' };
  for (const name of ['AZURE_OPENAI_ENDPOINT', 'AZURE_OPENAI_BASE_URL', 'AZURE_OPENAI_API_KEY']) {
    if (env[name]) return { name: 'azure', demo: false, reason: `${name} is set` };
  }
  if (env.AWS_BEARER_TOKEN_BEDROCK)
    return { name: 'bedrock', demo: false, reason: 'AWS_BEARER_TOKEN_BEDROCK is set' };
  if (env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME)
    return { name: 'bedrock', demo: false, reason: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME is set' };
  return { name: 'mock', demo: true, reason: 'no provider credentials found' };
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;

/** A `${NAME}` without a default whose variable is not set, and where it stands (`providers[0].config.model`). */
export interface UnsetVariable {
  name: string;
  at: string;
}

/**
 * Expand `${VAR}` and `${VAR:default}` in every string value (not keys) of
 * plain data. A variable that is not set takes its default, or "" without one
 * (as in Amplifier); each such use is passed to `unset`, so the caller can
 * name it. The copy keeps only own keys, and keeps `__proto__`, `constructor`
 * and `prototype` as keys (assignment would make `__proto__` the prototype,
 * and its values would then pass for the config's own settings).
 */
export function expandEnv<T>(
  value: T,
  env: NodeJS.ProcessEnv = process.env,
  unset?: (variable: UnsetVariable) => void,
  at = '',
): T {
  if (typeof value === 'string') {
    return value.replace(VAR, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined) return found;
      if (fallback === undefined) unset?.({ name, at });
      return fallback ?? '';
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, unset, `${at}[${i}]`)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const where = at === '' ? key : `${at}.${key}`;
      setOwn(out, key, expandEnv((value as Record<string, unknown>)[key], env, unset, where));
    }
    return out as T;
  }
  return value;
}

/** One warning line for each unset variable a plan uses: what is empty now and how to fix it. */
export function unsetVariableWarnings(unset: readonly UnsetVariable[], origin: string): string[] {
  return unset.map(
    ({ name, at }) =>
      `\${${name}} is not set, so ${at || 'the value'} is empty (${origin}): set ${name}, or write \${${name}:default}`,
  );
}

/** Options that shape the plan of a run. */
export interface PlanOptions {
  /** A plan file (YAML or JSON), relative to the process's current directory. */
  planFile?: string | undefined;
  /** `anthropic`, `openai`, `mock`, or any provider module id. */
  provider?: string | undefined;
  model?: string | undefined;
  maxIterations?: number | undefined;
  /** The session's working directory (absolute). */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Sections to leave empty (`amplifier tool` runs tools without providers and hooks). */
  emptySections?: readonly ('providers' | 'tools' | 'hooks')[] | undefined;
  /** A loaded bundle's plan data (`bundlePlan`), used like a plan file; `ref` is what was asked for. */
  bundle?: { data: Record<string, unknown>; ref: string; origin: string } | undefined;
}

/** A plan ready for `AmplifierSession`, with what the CLI chose. */
export interface ResolvedPlan {
  /** Parsed (`parseMountPlan`): validated and frozen; the session keeps it without validating it again. */
  plan: MountPlan;
  provider: ProviderChoice;
  /** The model the provider entry asks for, when known. */
  model: string | undefined;
  /** Absolute path of the plan file, when one was used. */
  planFile: string | undefined;
  /** The bundle (as given to --bundle), when one was used. */
  bundle: string | undefined;
  /** The mount plan validator's warnings about the plan file (unknown sections and keys). */
  warnings: string[];
}

/** The provider module id for a short name (`openai` → `provider-openai`); other names pass through. */
export function providerModule(name: string): string {
  return PROVIDERS[name] ?? name;
}

/** The config key a provider module takes its model from. */
function modelKey(module: string): string {
  return module === 'provider-mock' ? 'model' : 'default_model';
}

/** A provider entry for the default plan (and for `--provider`). */
export function providerEntry(name: string, cwd: string, demo: boolean): ModuleSpec {
  const module = providerModule(name);
  if (module === 'provider-mock' && demo) return { module, config: { respond: demoResponder(cwd) } };
  return { module };
}

/** `web_search` backend from the environment, if any (Brave, Tavily, SearXNG); none: it errors when called. */
function webConfig(env: NodeJS.ProcessEnv): Record<string, unknown> {
  if (env.BRAVE_API_KEY) return { search_engine: 'brave' };
  if (env.TAVILY_API_KEY) return { search_engine: 'tavily' };
  if (env.SEARXNG_URL) return { search_engine: 'searxng', search_url: env.SEARXNG_URL };
  return {};
}

/** The built-in plan: loop-basic, context-simple, the provider, tool-filesystem, tool-bash, tool-web, hooks-logging. */
export function defaultPlan(provider: ModuleSpec, env: NodeJS.ProcessEnv = process.env): MountPlan {
  return {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [provider],
    tools: [
      // "." is resolved against the session's working directory (--cwd) by tool-filesystem.
      { module: 'tool-filesystem', config: { allowed_write_paths: ['.'] } },
      { module: 'tool-bash' },
      { module: 'tool-web', config: webConfig(env) },
    ],
    hooks: [{ module: 'hooks-logging' }],
  };
}

/**
 * What to tell about a plan file before it runs: a bundle given as a plan says
 * so. The validator's warnings (unknown sections and keys) are the session's
 * to log, once, when it starts (core's `mountPlanWarnings`).
 */
function planFileWarnings(data: unknown): string[] {
  const warnings: string[] = [];
  const record = data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  if ('bundle' in record || 'includes' in record) {
    warnings.push(
      'plan: this file has bundle sections (bundle, includes): run it with --bundle <file> to compose it',
    );
  }
  return warnings;
}

/** Read, parse and expand a plan file; relative `source` paths become relative to the file. */
export function readPlanFile(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  unset?: (variable: UnsetVariable) => void,
): unknown {
  if (/\.md$/i.test(file)) {
    throw new CliError(`${file} is a Markdown bundle, not a mount plan: run it with --bundle ${file}`);
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `Cannot read the plan file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  const parsed = parsePlanText(text, file);
  let data: unknown;
  try {
    // Own keys only, bounded depth: expansion and every later step walk a checked copy.
    data = ownData(parsed);
  } catch (error) {
    if (!AmplifierError.is(error)) throw error;
    throw new CliError(`Invalid plan file ${file}: ${error.message}`);
  }
  return resolveSources(expandEnv(data, env, unset), path.dirname(file));
}

const requireModule = createRequire(import.meta.url);

/**
 * JSON when the text is JSON (V8's parser has no depth limit), else YAML. The
 * YAML parser recurses: text nested deeper than it can follow is reported as
 * too deep rather than as the stack overflow it causes.
 */
function parsePlanText(text: string, file: string): unknown {
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON: YAML flow style (`{a: 1}`) or broken; the YAML parser says which.
    }
  }
  // Loaded only for YAML (a JSON plan never needs it); synchronously, as `readPlanFile` is.
  const { parseDocument } = requireModule('yaml') as typeof import('yaml');
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors
      .map((e) => {
        // prettyErrors puts the source excerpt after "...at line 3, column 1:"; the position is enough.
        const first = e.message.split('\n')[0]!.replace(/:\s*$/, '');
        return `  - ${first.replace(/^Maximum call stack size exceeded/, `nested too deeply to read (plans are at most ${MAX_DATA_DEPTH} levels deep)`)}`;
      })
      .join('\n');
    throw new CliError(`Cannot parse the plan file ${file} (YAML or JSON):\n${problems}`);
  }
  return doc.toJS() as unknown;
}

function isRelativePath(source: string): boolean {
  return source.startsWith('./') || source.startsWith('../') || source === '.' || source === '..';
}

/** Make `./x` sources absolute against `dir` (the plan file's folder), in every section. */
function resolveSources(data: unknown, dir: string): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const plan = data as Record<string, unknown>;
  const fix = (spec: unknown): void => {
    if (spec === null || typeof spec !== 'object') return;
    const entry = spec as Record<string, unknown>;
    if (typeof entry.source === 'string' && isRelativePath(entry.source)) {
      entry.source = path.resolve(dir, entry.source);
    }
  };
  for (const section of ['providers', 'tools', 'hooks']) {
    const list = plan[section];
    if (Array.isArray(list)) list.forEach(fix);
  }
  const session = plan.session;
  if (session !== null && typeof session === 'object') {
    const s = session as Record<string, unknown>;
    fix(s.orchestrator);
    fix(s.context);
    for (const key of ['orchestrator_source', 'context_source']) {
      const value = s[key];
      if (typeof value === 'string' && isRelativePath(value)) s[key] = path.resolve(dir, value);
    }
  }
  return plan;
}

/** The CliError for an invalid plan: every problem with its JSON path. */
function invalidPlan(errors: readonly DataError[], origin: string): CliError {
  const lines = errors.map((e) => `  - ${e.path || '(root)'} ${e.message}`).join('\n');
  return new CliError(
    `Invalid mount plan ${origin} (${errors.length} error${errors.length === 1 ? '' : 's'}):\n${lines}`,
  );
}

/** Throw a CliError listing every problem of an invalid plan with its JSON path. */
export function checkPlan(plan: unknown, origin: string): asserts plan is MountPlan {
  const { valid, errors } = validateMountPlan(plan);
  if (!valid) throw invalidPlan(errors, origin);
}

/**
 * The plan validated once: core's `parseMountPlan` (a frozen own copy that a
 * session keeps without validating it again), with the same CliError as
 * `checkPlan` when it is invalid.
 */
export function parsePlan(plan: unknown, origin: string): MountPlan {
  try {
    return parseMountPlan(plan);
  } catch (error) {
    if (!AmplifierError.is(error) || error.code !== 'MOUNT_PLAN_INVALID') throw error;
    throw invalidPlan((error as MountPlanError).errors, origin);
  }
}

/**
 * The plan for a run: a plan file (validated, expanded) or the default plan,
 * with the provider chosen and the overrides applied. The result is parsed
 * (`parsePlan`): hand it to `AmplifierSession` as it is, which validates it no
 * more. A plan file is validated as written (its problems are reported even
 * when an override would replace the part they are in); when an override
 * changes it, the changed plan is validated too. Each plan is validated once.
 */
export function resolvePlan(options: PlanOptions): ResolvedPlan {
  const env = options.env ?? process.env;
  const planFile = options.planFile === undefined ? undefined : path.resolve(options.planFile);
  const bundle = planFile === undefined ? options.bundle : undefined;
  const origin = planFile ?? (bundle === undefined ? '(built-in)' : `of the bundle ${bundle.origin}`);
  const warnings: string[] = [];
  let provider: ProviderChoice;
  /** The plan file as written, parsed. */
  let parsed: MountPlan | undefined;
  /** What the overrides change: a mutable copy of the plan, made on the first change. */
  let draft: MountPlan | undefined;
  const edit = (): MountPlan => {
    draft ??= ownMountPlan(parsed) as MountPlan;
    return draft;
  };
  if (planFile !== undefined || bundle !== undefined) {
    const unset: UnsetVariable[] = [];
    const data = planFile !== undefined ? readPlanFile(planFile, env, (u) => unset.push(u)) : bundle!.data;
    if (planFile !== undefined)
      warnings.push(...unsetVariableWarnings(unset, planFile), ...planFileWarnings(data));
    parsed = parsePlan(data, origin);
    const listed = parsed.providers ?? [];
    if (options.provider !== undefined) {
      const module = providerModule(options.provider);
      const kept = listed.filter((p) => p.module === module).length;
      const demo = module === 'provider-mock' && kept === 0;
      if (kept === 0) edit().providers = [providerEntry(options.provider, options.cwd, demo)];
      else if (kept < listed.length) {
        const plan = edit();
        plan.providers = (plan.providers ?? []).filter((p) => p.module === module);
      }
      provider = { name: options.provider, demo, reason: '--provider' };
    } else if (listed.length === 0) {
      // A plan without providers gets the one the environment points at.
      provider = chooseProvider(env);
      edit().providers = [providerEntry(provider.name, options.cwd, provider.demo)];
    } else {
      const first = listed[0]!.module;
      const short = Object.entries(PROVIDERS).find(([, id]) => id === first)?.[0] ?? first;
      provider = {
        name: short,
        demo: false,
        reason: planFile ? `the plan file ${planFile}` : `the bundle ${origin}`,
      };
    }
  } else {
    provider =
      options.provider !== undefined
        ? {
            name: options.provider,
            demo: providerModule(options.provider) === 'provider-mock',
            reason: '--provider',
          }
        : chooseProvider(env);
    draft = defaultPlan(providerEntry(provider.name, options.cwd, provider.demo), env);
  }

  if (options.model !== undefined) {
    for (const entry of edit().providers ?? []) {
      entry.config = { ...entry.config, [modelKey(entry.module)]: options.model };
    }
  }
  if (options.maxIterations !== undefined)
    setOrchestratorConfig(edit(), { max_iterations: options.maxIterations });
  for (const section of options.emptySections ?? []) edit()[section] = [];
  const plan = draft === undefined ? (parsed as MountPlan) : parsePlan(draft, origin);
  const first = plan.providers?.[0];
  const model = first?.config?.[modelKey(first.module)];
  return {
    plan,
    provider,
    model: typeof model === 'string' ? model : undefined,
    planFile,
    bundle: bundle?.ref,
    warnings,
  };
}

/** Merge `config` into the orchestrator's config, whichever form `session.orchestrator` has. */
function setOrchestratorConfig(plan: MountPlan, config: Record<string, unknown>): void {
  const orchestrator = plan.session.orchestrator;
  if (typeof orchestrator === 'string') {
    const section = (plan.orchestrator ?? {}) as { config?: Record<string, unknown> };
    plan.orchestrator = { ...section, config: { ...section.config, ...config } };
  } else {
    orchestrator.config = { ...orchestrator.config, ...config };
  }
}

/** A JSON-safe summary of a plan (module ids per section), for metadata and `/status`. */
export function planSummary(plan: MountPlan): Record<string, unknown> {
  const id = (spec: string | ModuleSpec): string => (typeof spec === 'string' ? spec : spec.module);
  return {
    orchestrator: id(plan.session.orchestrator),
    context: id(plan.session.context),
    providers: (plan.providers ?? []).map((p) => p.module),
    tools: (plan.tools ?? []).map((t) => t.module),
    hooks: (plan.hooks ?? []).map((h) => h.module),
  };
}
