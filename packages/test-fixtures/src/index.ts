/**
 * @amplifier/test-fixtures: test fixtures that know nothing about the kernel,
 * so every package can use them, core's own tests included (core cannot
 * depend on `@amplifier/testing`, which depends on core; turbo refuses a
 * cycle). `@amplifier/testing` re-exports all of it.
 *
 * - Package trees on disk: `writePackage`, `writeProject`, `installNpm`,
 *   `installPnpm` (npm's hoisted and pnpm's symlinked layouts),
 *   `createLargeProject`.
 * - Hostile data: `nestedValue`, `nestedJson`, `randomDeepValue`,
 *   `seededRandom`, `depthOf`.
 * - Secrets as text: `REDACTION_SECRET_CASES` and `REDACTION_PLAIN_CASES`,
 *   the redaction corpus (what a redactor must hide, what it must leave);
 *   `SECRET_KEY_NAMES` and `PLAIN_KEY_NAMES`, key names that hold secrets or not.
 * - Telemetry: `startOtlpReceiver`, an OTLP/HTTP (JSON) receiver on
 *   127.0.0.1 that decodes the spans it is sent.
 * - Tests that need a tool the machine may lack: `skipUnless(available, what)`
 *   (a failure instead of a skip under `AMPLIFIER_REQUIRE_TOOLS=1`).
 * - Waiting without sleeping: `waitFor(condition)`, and `startReadyChild`,
 *   a child process that prints one JSON line when the test may act.
 */
export type { RandomValueOptions } from './deep-values.js';
export { depthOf, nestedJson, nestedValue, randomDeepValue, seededRandom } from './deep-values.js';
export type { OtlpReceiver, OtlpSpan } from './otlp-receiver.js';
export { startOtlpReceiver } from './otlp-receiver.js';
export type { LargeProject, LargeProjectOptions, PackageModuleType, PackageSpec } from './package-trees.js';
export {
  createLargeProject,
  idOf,
  installNpm,
  installPnpm,
  moduleIdOf,
  pnpmStoreDir,
  writeFiles,
  writePackage,
  writeProject,
} from './package-trees.js';
export { tcpListenPorts } from './proc-net.js';
export type { CodeBlock } from './readme-examples.js';
export { codeBlocks, shownExample } from './readme-examples.js';
export type { ReadyChild } from './ready-child.js';
export { startReadyChild } from './ready-child.js';
export {
  PLAIN_CASES as REDACTION_PLAIN_CASES,
  PLAIN_KEY_NAMES,
  SECRET_CASES as REDACTION_SECRET_CASES,
  SECRET_KEY_NAMES,
} from './redaction-corpus.js';
export type { SandboxGate } from './sandbox-gate.js';
export { sandboxGate } from './sandbox-gate.js';
export { REQUIRE_TOOLS_VARIABLE, skipUnless } from './tool-gate.js';
export type { WaitForOptions } from './wait-for.js';
export { waitFor } from './wait-for.js';
