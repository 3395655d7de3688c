/**
 * The conformance suites a module's own vitest file calls in one line:
 *
 * ```ts
 * import { toolConformance } from '@amplifier/testing';
 * import { mount } from './index.js';
 * toolConformance({ mount, config: { allowed_write_paths: [dir] }, tools: ['read_file'] });
 * ```
 *
 * Each registers a `describe` block with one `it` per check. Every test mounts
 * the module into a fresh `createTestCoordinator({ bare: true })` (after
 * `setup`) and runs the cleanups afterwards. The checks themselves are the
 * exported `toolChecks`, `contextChecks`, ... arrays.
 */
import { describe, it } from 'vitest';
import { contextChecks } from './context-checks.js';
import type { ConformanceCheck, ModuleUnderTest } from './harness.js';
import { type HookModuleUnderTest, hookChecks } from './hook-checks.js';
import { orchestratorChecks } from './orchestrator-checks.js';
import { providerChecks } from './provider-checks.js';
import { type ToolModuleUnderTest, toolChecks } from './tool-checks.js';

function suite<M extends ModuleUnderTest>(
  title: string,
  checks: readonly ConformanceCheck<M>[],
  module: M,
): void {
  describe(title, () => {
    for (const check of checks) {
      it(check.name, () => check.run(module));
    }
  });
}

/** Every tool `mount` registers (or the ones named in `tools`) behaves as the kernel expects. */
export function toolConformance(module: ToolModuleUnderTest): void {
  suite('tool conformance', toolChecks, module);
}

/** The mounted context manager keeps history exactly and survives odd messages. */
export function contextConformance(module: ModuleUnderTest): void {
  suite('context conformance', contextChecks, module);
}

/** The handlers `mount` registers (and `events`, if given) survive empty and odd data. */
export function hookConformance(module: HookModuleUnderTest): void {
  suite('hook conformance', hookChecks, module);
}

/** The mounted orchestrator runs a turn and a tool call with mock collaborators. */
export function orchestratorConformance(module: ModuleUnderTest): void {
  suite('orchestrator conformance', orchestratorChecks, module);
}

/** The mounted provider answers a minimal request with a valid ChatResponse. */
export function providerConformance(module: ModuleUnderTest): void {
  suite('provider conformance', providerChecks, module);
}
