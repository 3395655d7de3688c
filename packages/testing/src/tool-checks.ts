/**
 * Conformance checks for tool modules: what every mounted tool must do for
 * the kernel and for a model that calls it badly.
 */
import type { JSONSchema, Tool } from '@amplifier/core';
import { checkData, errorMessage, formatDataErrors, serializeToolOutput } from '@amplifier/core';
import { compileSchema } from '@amplifier/schema';
import {
  type ConformanceCheck,
  cleanupCheck,
  describeValue,
  ensure,
  fail,
  type ModuleUnderTest,
  type MountedModule,
  mustNotThrow,
  withMounted,
} from './harness.js';

/** A tool module under test; `tools` names the tools it must mount (default: every mounted tool). */
export type ToolModuleUnderTest = ModuleUnderTest & { tools?: string[] };

/** Tool names the kernel and the providers accept everywhere: lower snake_case. */
export const SNAKE_CASE: RegExp = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** The tools a check runs against: the expected ones (all must be there) or every mounted tool. */
function targets(mounted: MountedModule, module: ToolModuleUnderTest): Tool[] {
  const tools = mounted.coordinator.get('tools');
  if (module.tools !== undefined) {
    const missing = module.tools.filter((name) => !tools.has(name));
    ensure(
      missing.length === 0,
      `expected tools not mounted: ${missing.join(', ')} (mounted: ${[...tools.keys()].join(', ') || 'none'})`,
    );
    return module.tools.map((name) => tools.get(name)!);
  }
  ensure(tools.size > 0, 'mount registered no tools: call coordinator.mount("tools", tool)');
  return [...tools.values()];
}

/** A value of the wrong JSON type for a property schema. */
export function wrongValue(schema: unknown): unknown {
  const type = (schema as { type?: unknown } | null)?.type;
  const first = Array.isArray(type) ? type[0] : type;
  switch (first) {
    case 'string':
      return 12345;
    case 'number':
    case 'integer':
      return 'not a number';
    case 'boolean':
      return 'not a boolean';
    case 'array':
      return 'not an array';
    case 'object':
      return 'not an object';
    case 'null':
      return 0;
    default:
      return { unexpected: [1, 'two', null] };
  }
}

/** Inputs a confused model might send: every property with a wrong type, and every property null. */
export function badInputs(schema: JSONSchema | undefined): Record<string, unknown>[] {
  const properties = schema?.properties;
  const keys = typeof properties === 'object' && properties !== null ? Object.keys(properties as object) : [];
  if (keys.length === 0) return [{ unexpected_field: 12345 }];
  const props = properties as Record<string, unknown>;
  return [
    Object.fromEntries(keys.map((key) => [key, wrongValue(props[key])])),
    Object.fromEntries(keys.map((key) => [key, null])),
  ];
}

/** Fail unless `result` is a ToolResult the kernel can use and turn into text for the model. */
export function assertToolResult(result: unknown, what: string): void {
  const errors = checkData('tool-result', result);
  ensure(errors.length === 0, `${what} returned an invalid ToolResult:\n${formatDataErrors(errors)}`);
  const tr = result as { success: boolean; error?: { message?: unknown } | null };
  if (!tr.success) {
    ensure(
      typeof tr.error?.message === 'string' && tr.error.message.trim() !== '',
      `${what} returned success: false without error.message; return { success: false, error: { message } } so the model learns what to fix`,
    );
  }
  let text: unknown;
  try {
    text = serializeToolOutput(result as Parameters<typeof serializeToolOutput>[0]);
  } catch (error) {
    fail(`serializeToolOutput failed on the result of ${what}: ${errorMessage(error)}`);
  }
  ensure(typeof text === 'string', `serializeToolOutput gave ${describeValue(text)} for ${what}`);
}

/**
 * Fail unless the tool's executionProfile (if any) is well-formed: boolean
 * flags, a positive timeoutMs, and a resourceKeys that returns
 * `[{ key, mode }]` for an incomplete input (`{}`) without throwing.
 */
export async function checkExecutionProfile(tool: Tool): Promise<void> {
  const profile = tool.executionProfile as Record<string, unknown> | undefined;
  if (profile === undefined) return;
  const where = `tool ${tool.name}: executionProfile`;
  ensure(typeof profile === 'object' && profile !== null, `${where} must be an object`);
  for (const flag of ['serial', 'disableTimeout']) {
    ensure(
      profile[flag] === undefined || typeof profile[flag] === 'boolean',
      `${where}.${flag} must be a boolean`,
    );
  }
  const timeout = profile.timeoutMs;
  ensure(
    timeout === undefined || (typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout)),
    `${where}.timeoutMs must be a positive number of milliseconds, found ${describeValue(timeout)}`,
  );
  if (profile.resourceKeys === undefined) return;
  const resourceKeys = profile.resourceKeys;
  ensure(typeof resourceKeys === 'function', `${where}.resourceKeys must be a function`);
  const keys = await mustNotThrow(`${where}.resourceKeys({})`, () => resourceKeys.call(profile, {}));
  ensure(
    Array.isArray(keys),
    `${where}.resourceKeys({}) must return an array, returned ${describeValue(keys)}`,
  );
  for (const key of keys as unknown[]) {
    const k = key as { key?: unknown; mode?: unknown } | null;
    ensure(
      typeof k?.key === 'string' && k.key !== '' && (k.mode === 'read' || k.mode === 'write'),
      `${where}.resourceKeys({}) returned ${describeValue(key)}; each entry must be { key: string, mode: 'read' | 'write' }`,
    );
  }
}

/** Call `tool.execute(input, options)` and fail unless it resolves to a valid ToolResult. */
export async function executeChecked(
  tool: Tool,
  input: Record<string, unknown>,
  options: { signal?: AbortSignal } = {},
): Promise<unknown> {
  const what = `${tool.name}.execute(${describeValue(input)}${options.signal ? ', { signal: aborted }' : ''})`;
  const result = await mustNotThrow(what, () => tool.execute(input, options));
  assertToolResult(result, what);
  return result;
}

/** Every check of the tool suite, in order. */
export const toolChecks: readonly ConformanceCheck<ToolModuleUnderTest>[] = [
  {
    name: 'mount registers the expected tools through coordinator.mount',
    run: (module) =>
      withMounted(module, async (mounted) => {
        const tools = targets(mounted, module);
        const viaMount = mounted.coordinator.mountHistory.filter((h) => h.mountPoint === 'tools');
        for (const tool of tools) {
          ensure(
            viaMount.some((h) => h.module === tool),
            `tool ${describeValue(tool.name)} is in the tools map but was not mounted with coordinator.mount('tools', tool)`,
          );
        }
      }),
  },
  {
    name: 'tool names are snake_case and unique (aliases included)',
    run: (module) =>
      withMounted(module, async (mounted) => {
        const tools = targets(mounted, module);
        const seen = new Map<string, string>();
        const mounts = mounted.coordinator.mountHistory.filter((h) => h.mountPoint === 'tools');
        for (const tool of tools) {
          ensure(
            typeof tool.name === 'string' && SNAKE_CASE.test(tool.name),
            `tool name ${describeValue(tool.name)} is not snake_case (like read_file)`,
          );
          const times = mounts.filter(
            (h) => (h.name ?? (h.module as { name?: unknown } | null)?.name) === tool.name,
          ).length;
          ensure(
            times <= 1,
            `tool ${tool.name} was mounted ${times} times; the last one silently replaced the others`,
          );
          for (const name of [tool.name, ...(tool.aliases ?? [])]) {
            const owner = seen.get(name);
            ensure(
              owner === undefined,
              `name ${describeValue(name)} is used by both ${owner} and ${tool.name}`,
            );
            seen.set(name, tool.name);
          }
        }
      }),
  },
  {
    name: 'every tool has a non-empty description',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const tool of targets(mounted, module)) {
          ensure(
            typeof tool.description === 'string' && tool.description.trim() !== '',
            `tool ${tool.name} has no description (found ${describeValue(tool.description)}); the model picks tools by it`,
          );
        }
      }),
  },
  {
    name: 'inputSchema (if any) compiles and describes an object',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const tool of targets(mounted, module)) {
          const schema = tool.inputSchema;
          if (schema === undefined) continue;
          ensure(
            typeof schema === 'object' && schema !== null && !Array.isArray(schema),
            `tool ${tool.name}: inputSchema must be a JSON Schema object, found ${describeValue(schema)}`,
          );
          try {
            compileSchema(schema);
          } catch (error) {
            fail(`tool ${tool.name}: inputSchema does not compile: ${errorMessage(error)}`);
          }
          ensure(
            schema.type === undefined || schema.type === 'object',
            `tool ${tool.name}: inputSchema.type must be "object" (tool input is always an object), found ${describeValue(schema.type)}`,
          );
        }
      }),
  },
  {
    name: 'execute({}) resolves to a valid ToolResult without throwing',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const tool of targets(mounted, module)) {
          ensure(typeof tool.execute === 'function', `tool ${tool.name} has no execute function`);
          await executeChecked(tool, {});
        }
      }),
  },
  {
    name: 'execute with wrong-typed or null values resolves to a valid ToolResult',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const tool of targets(mounted, module)) {
          for (const input of badInputs(tool.inputSchema)) await executeChecked(tool, input);
        }
      }),
  },
  {
    name: 'execute with an already-aborted signal settles to a ToolResult without throwing',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const tool of targets(mounted, module)) {
          const controller = new AbortController();
          controller.abort(new Error('aborted by the conformance suite'));
          await executeChecked(tool, {}, { signal: controller.signal });
        }
      }),
  },
  {
    name: 'executionProfile (if any) is well-formed and resourceKeys returns [{ key, mode }]',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const tool of targets(mounted, module)) await checkExecutionProfile(tool);
      }),
  },
  cleanupCheck<ToolModuleUnderTest>(),
];
