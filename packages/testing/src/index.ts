/**
 * @amplifier/testing: the test kit for module authors. Test doubles (a test
 * coordinator, mock tools, providers and context managers), conformance
 * suites a module's vitest file calls in one line (`toolConformance({ mount,
 * config })`, or the context, hook, orchestrator, provider variant), and the
 * check arrays behind them. The suites use vitest, an optional peer dependency.
 * `validateModule` (what `amplifier module validate` runs) is at
 * `@amplifier/testing/validation`, which does not load vitest. The fixtures
 * of `@amplifier/test-fixtures` (package trees, deep values, `waitFor`,
 * `startReadyChild`) are re-exported here.
 */

// The kernel-free fixtures, so a module's tests need one import.
export * from '@amplifier/test-fixtures';
export { boundedValue } from './bounded-value.js';
export {
  contextConformance,
  hookConformance,
  orchestratorConformance,
  providerConformance,
  toolConformance,
} from './conformance.js';
export { contextChecks, oddMessages } from './context-checks.js';
export type { CheckOutcome, ConformanceCheck, LogRecord, ModuleUnderTest, MountedModule } from './harness.js';
export {
  ConformanceError,
  cleanupForTest,
  mountForTest,
  RecordingLogger,
  runConformanceChecks,
  withMounted,
} from './harness.js';
export type { HookModuleUnderTest } from './hook-checks.js';
export { hookChecks, oddEventData } from './hook-checks.js';
export {
  createTestCoordinator,
  EventRecorder,
  inProcessLoader,
  MockContextManager,
  MockProvider,
  MockTool,
  TestCoordinator,
} from './mocks.js';
export { orchestratorChecks } from './orchestrator-checks.js';
export { MINIMAL_REQUEST, providerChecks } from './provider-checks.js';
export type { ScriptedRun } from './scripted-orchestrator.js';
export { ScriptedOrchestrator } from './scripted-orchestrator.js';
export type { ToolModuleUnderTest } from './tool-checks.js';
export { assertToolResult, badInputs, toolChecks } from './tool-checks.js';
