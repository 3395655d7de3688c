/**
 * @amplifier/core/testing: test doubles and conformance suites for module
 * authors. The suites use vitest (an optional peer dependency of core): a
 * module's test file calls `toolConformance({ mount, config })` (or the
 * context, hook, orchestrator, provider variant) in one line.
 */
export {
  contextConformance,
  hookConformance,
  orchestratorConformance,
  providerConformance,
  toolConformance,
  transportConformance,
} from './conformance.js';
export { contextChecks, oddMessages } from './context-checks.js';
export type { RandomValueOptions } from './deep-values.js';
export {
  boundedValue,
  depthOf,
  nestedJson,
  nestedValue,
  randomDeepValue,
  seededRandom,
} from './deep-values.js';
export type { FakeReply, HeldReply, RecordedRequest, ReplyPiece } from './fake-llm-server.js';
export { FakeLlmServer, llmErrorOf, reply, splitBytes, sseEvent } from './fake-llm-server.js';
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
export type { LargeProject, LargeProjectOptions, PackageSpec } from './package-trees.js';
export {
  createLargeProject,
  idOf,
  installNpm,
  installPnpm,
  pnpmStoreDir,
  writeFiles,
  writePackage,
  writeProject,
} from './package-trees.js';
export { MINIMAL_REQUEST, providerChecks } from './provider-checks.js';
export type { ReadyChild } from './ready-child.js';
export { startReadyChild } from './ready-child.js';
export type { ScriptedRun } from './scripted-orchestrator.js';
export { ScriptedOrchestrator } from './scripted-orchestrator.js';
export type { ToolModuleUnderTest } from './tool-checks.js';
export { assertToolResult, badInputs, toolChecks } from './tool-checks.js';
export type { TransportCheck, TransportUnderTest } from './transport-checks.js';
export { transportChecks } from './transport-checks.js';
export type { WaitForOptions } from './wait-for.js';
export { waitFor } from './wait-for.js';
