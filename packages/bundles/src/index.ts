/**
 * @amplifier/bundles: Amplifier bundles read as they are. Load one
 * (`loadBundle`), turn it into the mount plan a session runs
 * (`bundleToMountPlan`), and give the session its system prompt
 * (`buildSystemPrompt`, `applySystemPrompt`).
 */
export {
  type AgentConfig,
  type AgentDirListing,
  type AgentProviderPreference,
  type AgentRosterFilter,
  agentFileFor,
  agentFromData,
  agentOverlay,
  loadAgentDir,
  parseAgentText,
  type ResolvedAgents,
  readAgentFile,
  resolveAgents,
} from './agents.js';
export { compose, deepMerge, mergeModules } from './compose.js';
export {
  BUNDLE_ERRORS,
  BundleDependencyError,
  BundleError,
  type BundleErrorCode,
  type BundleErrorOptions,
  BundleLoadError,
  BundleNotFoundError,
  BundleValidationError,
} from './errors.js';
export { type GitResolverOptions, type GitSource, gitCacheKey, gitResolver, parseGitUri } from './git.js';
export { applySystemPrompt } from './instructions.js';
export {
  BUNDLE_LIMITS,
  type Bundle,
  INCLUDE_DEPTH,
  type LoadBundleOptions,
  loadBundle,
  MAX_BUNDLE_FILES,
} from './load.js';
export {
  buildSystemPrompt,
  extractMentions,
  MENTION_DEPTH,
  missingContextFiles,
  type SystemPromptOptions,
} from './mentions.js';
export {
  BUNDLE_FILES,
  type BundleData,
  bundleFileAt,
  type ContextEntry,
  type ModuleEntry,
  moduleList,
  parseBundleText,
  parseYaml,
  readBundleFile,
  splitFrontMatter,
} from './parse.js';
export { bundlePlanData, bundleToMountPlan, notRunnableReason } from './plan.js';
export {
  BundleReferenceError,
  type BundleReferenceErrorOptions,
  FILE_READ_ERRORS,
  FileReadError,
  REFERENCE_LIMITS,
  type ReferenceLimits,
  type ReferenceReader,
  type ReferenceReaderOptions,
  type ReferenceRefusal,
  type ReferenceScope,
  type ResolvedReference,
  type ResolveHow,
  readRegularFile,
  referenceReader,
} from './references.js';
export {
  type BundleSourceResolver,
  isUri,
  mapSource,
  type ResolvedSource,
  splitSubdirectory,
} from './sources.js';
export {
  type ChildInfo,
  type ChildStore,
  createSpawner,
  memoryChildStore,
  type Spawner,
  type SpawnerOptions,
  type StoredChild,
} from './spawn.js';
export {
  APPROVAL_MODULE,
  type ChildPlan,
  type ChildPlanInput,
  childPlan,
  filterRoster,
  globMatch,
  type Inheritance,
  mergeApprovalConfig,
  overlayMerge,
  providerName,
  type SpawnRule,
} from './spawn-policy.js';
export { closestName } from './suggest.js';
