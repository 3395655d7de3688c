/**
 * @amplifier/provider-ai-sdk: any Vercel AI SDK language model (the
 * `LanguageModelV3` spec of the `@ai-sdk/*` packages, and V4) as an Amplifier
 * provider. A mount plan names the package and the model; an app composing
 * in code hands over the model object.
 */
import { fileURLToPath } from 'node:url';
import {
  type Cleanup,
  type Coordinator,
  createLLMError,
  DataValidationError,
  OBSERVABILITY_EVENTS_CHANNEL,
} from '@amplifier/core';
import {
  assertProviderConfig,
  PROVIDER_STREAM_EVENTS,
  readProviderConfig,
  sessionCostContribution,
} from '@amplifier/provider-http';
import { type AiSdkConfig, CONFIG_SCHEMA, type ResolvedConfig, resolveConfig } from './config.js';
import { loadModelFactory, type PackageRoots } from './load.js';
import { AiSdkProvider, type AiSdkProviderOptions, type ModelSource } from './provider.js';
import { type AiSdkModel, checkModel } from './spec.js';

export {
  AnswerBuilder,
  FINISH_METADATA_KEY,
  PROVIDER_PARTS_KEY,
  RESPONSE_ID_KEY,
  toFinishReason,
  toUsage,
} from './answer.js';
export type { AiSdkConfig, ResolvedConfig } from './config.js';
export { AI_SDK_CONFIG_PROPERTIES, CONFIG_SCHEMA, resolveConfig } from './config.js';
export { ERROR_STYLE, isApiCallError } from './errors.js';
export type { ModelFactory, PackageRoots } from './load.js';
export { findModelPackage, loadModelFactory, packageEntry } from './load.js';
export { CALLS_KEY, METADATA_FIELD, PROVIDER_KEY, toCallOptions, toPrompt } from './prompt.js';
export type { AiSdkProviderOptions, ModelSource } from './provider.js';
export { AiSdkProvider } from './provider.js';
export type {
  AiSdkModel,
  CallOptions,
  PromptMessage,
  PromptPart,
  ProviderMetadata,
  SpecUsage,
  StreamPart,
} from './spec.js';
export { checkModel, SUPPORTED_SPECS, V4_REASONING } from './spec.js';

/** Events this provider emits beyond the canonical set (declared on `observability.events`). */
export const EXTRA_EVENTS: readonly string[] = PROVIDER_STREAM_EVENTS;

const MODULE = 'provider-ai-sdk';

/** Models by id, made once each. */
function cached(make: (id: string) => AiSdkModel): ModelSource {
  const models = new Map<string, AiSdkModel>();
  return (id) => {
    let model = models.get(id);
    if (model === undefined) {
      model = make(id);
      models.set(id, model);
    }
    return model;
  };
}

/**
 * A provider over a model object built in code (`createMistral({...})('mistral-small-latest')`),
 * or over a function from model id to model (then requests may name other
 * models). Config as the mount plan's, validated; `package` and `factory` are
 * not read. Throws a TypeError for a value that is not a model of spec v3/v4.
 */
export function createAiSdkProvider(
  model: AiSdkModel | ((modelId: string) => AiSdkModel),
  config: AiSdkConfig = {},
  options: AiSdkProviderOptions = {},
): AiSdkProvider {
  assertProviderConfig(CONFIG_SCHEMA, config as Record<string, unknown>, MODULE);
  const resolved = resolveConfig(config);
  let source: ModelSource;
  if (typeof model === 'function') {
    if (resolved.model === '') {
      throw new DataValidationError(`${MODULE}: a model function needs config default_model (the model id)`, [
        { path: 'default_model', message: 'required with a model function' },
      ]);
    }
    source = cached((id) => checkModel(model(id), `the model function's model '${id}'`));
  } else {
    const fixed = checkModel(model, 'the model');
    if (resolved.model === '') resolved.model = fixed.modelId;
    source = (id) => {
      if (id === fixed.modelId || id === resolved.model) return fixed;
      throw createLLMError(
        'invalid_request',
        `${resolved.name}: the request names model '${id}', but this provider holds one model object ('${fixed.modelId}'); pass a function from model id to model to serve others`,
        { provider: resolved.name, model: id, retryable: false },
      );
    };
  }
  return new AiSdkProvider(resolved, source, options);
}

/** Check what a mount (or `loadAiSdkProvider`) needs: a package and a model id. */
function requirePackage(resolved: ResolvedConfig): string {
  const problems: { path: string; message: string }[] = [];
  if (resolved.package === undefined)
    problems.push({ path: 'package', message: 'required: the AI SDK package, e.g. @ai-sdk/mistral' });
  if (resolved.model === '')
    problems.push({ path: 'default_model', message: 'required: the model id, e.g. mistral-large-latest' });
  if (problems.length > 0) {
    throw new DataValidationError(
      `${MODULE}: ${problems.map((p) => `${p.path} is ${p.message}`).join('; ')}`,
      problems,
    );
  }
  return resolved.package!;
}

/**
 * A provider over the package config names, found from `roots` (the
 * project, as the core loader finds modules). Fails with what is missing: no
 * package or model id, a package that is not installed, has no such factory or
 * makes a model of another spec version.
 */
export async function loadAiSdkProvider(
  config: AiSdkConfig,
  roots: PackageRoots,
  options: AiSdkProviderOptions = {},
): Promise<AiSdkProvider> {
  assertProviderConfig(CONFIG_SCHEMA, config as Record<string, unknown>, MODULE);
  return fromResolved(resolveConfig(config), roots, options);
}

async function fromResolved(
  resolved: ResolvedConfig,
  roots: PackageRoots,
  options: AiSdkProviderOptions,
): Promise<AiSdkProvider> {
  const name = requirePackage(resolved);
  const factory = await loadModelFactory(name, resolved.factory, resolved.options, roots);
  const source = cached(factory);
  source(resolved.model); // the configured model is made (and its spec checked) now, not at the first call
  return new AiSdkProvider(resolved, source, options);
}

/**
 * The session's package roots: its loader's `baseDir` (else the cwd), the
 * loader's `extraRoots` (a `ModuleLoader`: the CLI's own modules), then where
 * the bridge itself is installed (packages installed beside it, as an app's
 * dependencies are).
 */
function rootsOf(coordinator: Coordinator): PackageRoots {
  const loader = coordinator.loader as { baseDir?: unknown; extraRoots?: unknown } | undefined;
  const baseDir = typeof loader?.baseDir === 'string' ? loader.baseDir : process.cwd();
  const extraRoots = Array.isArray(loader?.extraRoots)
    ? loader.extraRoots.filter((r): r is string => typeof r === 'string')
    : [];
  return { baseDir, extraRoots: [...extraRoots, fileURLToPath(new URL('.', import.meta.url))] };
}

/**
 * Mount the bridge under config `name` (default `ai-sdk`). The package is
 * found in the session's project (its loader's `baseDir`, then extra roots)
 * and imported: naming it runs its code, as naming a module does. With
 * `api_key_env` set and neither that variable nor `api_key`, it does not mount
 * and logs why. Bad config, a missing package or a model of an unsupported
 * spec version fail the mount with what to do. Registers the `session.cost`
 * contribution and the stream events; the cleanup aborts calls in flight.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup | undefined> {
  const valid = readProviderConfig(CONFIG_SCHEMA, config, MODULE, coordinator.logger);
  const resolved = resolveConfig(valid as AiSdkConfig);
  if (resolved.apiKeyEnv !== undefined && resolved.options.apiKey === undefined) {
    coordinator.logger.warn(
      `${MODULE}: not mounted: no API key. Set ${resolved.apiKeyEnv}, or the provider's api_key config.`,
    );
    return undefined;
  }
  const provider = await fromResolved(resolved, rootsOf(coordinator), {
    hooks: coordinator.hooks,
    logger: coordinator.logger,
  });
  coordinator.mount('providers', provider, { name: provider.name });
  coordinator.registerContributor('session.cost', MODULE, () => sessionCostContribution(provider));
  coordinator.registerContributor(OBSERVABILITY_EVENTS_CHANNEL, MODULE, () => [...EXTRA_EVENTS]);
  return () => provider.close();
}
