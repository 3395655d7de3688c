/**
 * @amplifier/cli: the `amplifier` command. This entry exposes the pieces an
 * app may reuse: the default mount plan and plan loading (with `${VAR}`
 * expansion), the provider choice, the offline demo, the session store, the
 * live display and the approval prompt.
 */
export type { ApprovalOptions, AskFunction } from './approval.js';
export { CliApproval, interpretAnswer } from './approval.js';
export type { BundleListing, BundleOptions } from './bundles.js';
export {
  bundleCacheDir,
  bundleSearchPaths,
  findBundles,
  isOffline,
  loadCliBundle,
  parseSourceFlags,
  SHIPPED_BUNDLES_DIR,
  WELL_KNOWN_BUNDLES,
} from './bundles.js';
export { DEMO_PROMPT, demoResponder, pickFile } from './demo.js';
export type { DisplayOptions } from './display.js';
export { Display, formatDuration, summarizeArgs, useColor } from './display.js';
export { CliError, EXIT_CANCELLED, EXIT_ERROR, EXIT_OK, EXIT_USAGE, noProviderMessage } from './errors.js';
export { CLI_PACKAGE_DIR, CLI_VERSION, createLoader } from './modules.js';
export type { PlanOptions, ProviderChoice, ResolvedPlan, UnsetVariable } from './plan.js';
export {
  checkPlan,
  chooseProvider,
  defaultPlan,
  expandEnv,
  PROVIDERS,
  parsePlan,
  planSummary,
  providerEntry,
  providerModule,
  readPlanFile,
  resolvePlan,
  unsetVariableWarnings,
} from './plan.js';
export type { RunOptions } from './run.js';
export { runCommand } from './run.js';
export type { OpenOptions, TurnOutcome } from './runner.js';
export { SessionRunner } from './runner.js';
export type { SessionMetadata, Transcript } from './sessions.js';
export {
  amplifierHome,
  INTERRUPTED_RESULT,
  projectSlug,
  repairToolCalls,
  SessionRecord,
  SessionStore,
} from './sessions.js';
export { parseToolArgs } from './tools.js';
