/**
 * Behavioural checks: mount the module into a test coordinator, look at what
 * it mounted for its type, and exercise each object the way the kernel will.
 * Nothing here calls the network: providers are checked by shape, not asked
 * to complete (their own conformance tests do that against a local server).
 */
import type { LoadedModule, Orchestrator, Provider, Tool } from '@amplifier/core';
import { errorMessage, type ModuleType, TYPE_TO_MOUNT_POINT } from '@amplifier/core';
import { compileSchema } from '@amplifier/schema';
import { contextChecks } from '../context-checks.js';
import {
  type ConformanceCheck,
  describeValue,
  type ModuleUnderTest,
  type MountedModule,
  RecordingLogger,
  runConformanceChecks,
} from '../harness.js';
import { emitChecked } from '../hook-checks.js';
import { createTestCoordinator, type TestCoordinator } from '../mocks.js';
import { orchestratorChecks } from '../orchestrator-checks.js';
import { checkExecutionProfile, executeChecked, SNAKE_CASE } from '../tool-checks.js';
import type { ValidationResult } from './result.js';

export interface ProtocolOptions {
  config: Record<string, unknown>;
  /** Registered as the `session.working_dir` capability, as a session does. */
  workingDir: string;
  /** Limit for each call into the module (default 10 s). */
  timeoutMs: number;
}

const NOUNS: Record<ModuleType, string> = {
  tool: 'tool',
  provider: 'provider',
  orchestrator: 'orchestrator',
  context: 'context manager',
  hook: 'hook handler',
  resolver: 'module source resolver',
};

/** Resolve with the value, or reject when it does not settle in `ms`. */
async function within<T>(value: T | Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve(value),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
        timer.unref?.();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Record a check from a function that throws on failure. */
async function attempt(
  result: ValidationResult,
  name: string,
  ok: string,
  body: () => Promise<void> | void,
  severity: 'error' | 'warning' = 'error',
): Promise<boolean> {
  try {
    await body();
    result.pass(name, ok, severity);
    return true;
  } catch (error) {
    result.fail(name, errorMessage(error), severity);
    return false;
  }
}

function isFunction(object: unknown, key: string): boolean {
  return typeof (object as Record<string, unknown> | null)?.[key] === 'function';
}

/** What the module mounted at its type's mount point (hooks: the events it registered for). */
function mountedObjects(
  type: ModuleType,
  coordinator: TestCoordinator,
): { label: string; object: unknown }[] {
  switch (type) {
    case 'tool':
      return [...coordinator.get('tools')].map(([name, object]) => ({ label: name, object }));
    case 'provider':
      return [...coordinator.get('providers')].map(([name, object]) => ({ label: name, object }));
    case 'hook':
      return Object.entries(coordinator.hooks.listHandlers())
        .filter(([, names]) => names.length > 0)
        .map(([event, names]) => ({ label: event, object: names }));
    default: {
      const object = coordinator.get(TYPE_TO_MOUNT_POINT[type]);
      return object === undefined || object === null ? [] : [{ label: type, object }];
    }
  }
}

async function checkTool(
  result: ValidationResult,
  label: string,
  tool: Tool,
  timeoutMs: number,
): Promise<void> {
  const name = tool.name;
  if (typeof name !== 'string' || name === '') {
    result.fail('tool_name', `tool mounted as '${label}' has no name (found ${describeValue(name)})`);
  } else if (!SNAKE_CASE.test(name)) {
    result.fail(
      'tool_name',
      `'${name}' is not snake_case (like read_file); some providers reject other names`,
      'warning',
    );
  } else {
    result.pass('tool_name', `'${name}'`);
  }
  if (typeof tool.description === 'string' && tool.description.trim() !== '') {
    result.pass(
      'tool_description',
      `'${label}': ${tool.description.split('\n')[0]?.slice(0, 80)}`,
      'warning',
    );
  } else {
    result.fail(
      'tool_description',
      `'${label}' has no description; the model chooses tools by it`,
      'warning',
    );
  }
  if (tool.inputSchema === undefined) {
    result.pass('tool_input_schema', `'${label}' has none (the model is told {})`, 'info');
  } else {
    await attempt(result, 'tool_input_schema', `'${label}' compiles and describes an object`, () => {
      const schema = tool.inputSchema;
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
        throw new Error(
          `'${label}': inputSchema must be a JSON Schema object, found ${describeValue(schema)}`,
        );
      }
      try {
        compileSchema(schema);
      } catch (error) {
        throw new Error(`'${label}': inputSchema does not compile: ${errorMessage(error)}`);
      }
      if (schema.type !== undefined && schema.type !== 'object') {
        throw new Error(`'${label}': inputSchema.type must be "object", found ${describeValue(schema.type)}`);
      }
    });
  }
  if (!isFunction(tool, 'execute')) {
    result.fail('tool_execute', `'${label}' has no execute function`);
    return;
  }
  result.pass('tool_execute', `'${label}' has execute(input, options)`);
  await attempt(
    result,
    'tool_execute_empty_input',
    `'${label}'.execute({}) returns a ToolResult`,
    async () => {
      await within(executeChecked(tool, {}), timeoutMs, `'${label}'.execute({})`);
    },
  );
  if (tool.executionProfile !== undefined) {
    await attempt(result, 'tool_execution_profile', `'${label}' has a well-formed executionProfile`, () =>
      within(checkExecutionProfile(tool), timeoutMs, `'${label}'.executionProfile.resourceKeys({})`),
    );
  }
}

async function checkProvider(result: ValidationResult, label: string, provider: Provider): Promise<void> {
  const name = provider.name;
  if (typeof name === 'string' && name.trim() !== '') result.pass('provider_name', `'${name}'`);
  else
    result.fail('provider_name', `provider mounted as '${label}' has no name (found ${describeValue(name)})`);
  if (!isFunction(provider, 'getInfo')) {
    result.fail('provider_get_info', `'${label}' has no getInfo function`);
  } else {
    try {
      const info = provider.getInfo();
      if (typeof info?.id === 'string' && info.id !== '' && typeof info.display_name === 'string') {
        result.pass('provider_get_info', `'${label}': ${info.display_name} (${info.id})`);
      } else {
        result.fail(
          'provider_get_info',
          `'${label}'.getInfo() must return { id, display_name }, returned ${describeValue(info)}`,
        );
      }
    } catch (error) {
      result.fail('provider_get_info', `'${label}'.getInfo() threw: ${errorMessage(error)}`, 'warning');
    }
  }
  for (const [method, check] of [
    ['listModels', 'provider_list_models'],
    ['complete', 'provider_complete'],
    ['parseToolCalls', 'provider_parse_tool_calls'],
  ] as const) {
    if (isFunction(provider, method)) result.pass(check, `'${label}' has ${method}`);
    else result.fail(check, `'${label}' has no ${method} function`);
  }
  if (isFunction(provider, 'parseToolCalls')) {
    await attempt(
      result,
      'provider_parse_tool_calls_result',
      `'${label}'.parseToolCalls returns the response's calls`,
      () => {
        const calls = provider.parseToolCalls({
          content: [],
          tool_calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } }],
        });
        if (!Array.isArray(calls) || !calls.some((c) => c?.id === 'call_1' && c?.name === 'read_file')) {
          throw new Error(
            `'${label}'.parseToolCalls(response with one tool call) returned ${describeValue(calls)}`,
          );
        }
      },
    );
  }
  if (provider.stream !== undefined && typeof provider.stream !== 'function') {
    result.fail('provider_stream', `'${label}'.stream is a ${typeof provider.stream}, not a function`);
  }
}

/** Run conformance checks of the test kit against fresh mounts of the module, as `behaviour: <check>`. */
async function behaviour(
  result: ValidationResult,
  checks: readonly ConformanceCheck[],
  module: ModuleUnderTest,
): Promise<void> {
  const relevant = checks.filter((c) => !c.name.startsWith('mount '));
  for (const outcome of await runConformanceChecks(relevant, module)) {
    if (outcome.passed) result.pass(`behaviour: ${outcome.name}`, 'ok');
    else result.fail(`behaviour: ${outcome.name}`, outcome.message);
  }
}

/**
 * `protocol_compliance` and everything after it: mount with the config, check
 * what got mounted, exercise it, then run the returned and registered
 * cleanups (their errors are reported as a warning, never fail the module).
 */
export async function checkProtocol(
  result: ValidationResult,
  type: ModuleType,
  loaded: LoadedModule,
  options: ProtocolOptions,
): Promise<void> {
  const logger = new RecordingLogger();
  const coordinator = createTestCoordinator({ bare: true, logger });
  coordinator.registerCapability('session.working_dir', options.workingDir);
  const noun = NOUNS[type];
  let returned: unknown;
  try {
    returned = await within(loaded.mount(coordinator), options.timeoutMs, 'mount(coordinator, config)');
  } catch (error) {
    result.fail(
      'protocol_compliance',
      `mount(coordinator, config) threw: ${errorMessage(error)}\n(config given: ${describeValue(options.config)}; pass the config the module needs)`,
    );
    await runCleanups(result, coordinator, logger, undefined);
    return;
  }
  const mounted = mountedObjects(type, coordinator);
  if (mounted.length === 0) {
    if (typeof returned === 'function') {
      result.fail(
        'protocol_compliance',
        `no ${noun} was mounted, but mount returned a cleanup: mounting may be conditional (missing config or credentials?)`,
        'warning',
      );
    } else {
      result.fail(
        'protocol_compliance',
        `No ${noun} was mounted and mount() returned nothing usable; call ${type === 'hook' ? 'coordinator.hooks.register(event, handler)' : `coordinator.mount('${TYPE_TO_MOUNT_POINT[type]}', ...)`}`,
      );
    }
  } else {
    result.pass(
      'protocol_compliance',
      `mounted ${mounted.length} ${noun}(s): ${mounted.map((m) => m.label).join(', ')}`,
    );
  }
  if (loaded.onSessionReady !== undefined) {
    await attempt(
      result,
      'on_session_ready_runs',
      'onSessionReady(coordinator) ran',
      () => within(loaded.onSessionReady?.(coordinator), options.timeoutMs, 'onSessionReady(coordinator)'),
      'warning',
    );
  }

  const module: ModuleUnderTest = {
    mount: (c) => loaded.mount(c),
    ...(loaded.onSessionReady && { onSessionReady: loaded.onSessionReady }),
    setup: (c) => c.registerCapability('session.working_dir', options.workingDir),
  };
  for (const { label, object } of mounted) {
    switch (type) {
      case 'tool':
        await checkTool(result, label, object as Tool, options.timeoutMs);
        break;
      case 'provider':
        await checkProvider(result, label, object as Provider);
        break;
      case 'hook': {
        const context: MountedModule = { coordinator, logger, returned };
        await attempt(
          result,
          'hook_emit',
          `emitting '${label}' with {} gives a valid result; no handler threw`,
          () => emitChecked(context, label, {}),
        );
        break;
      }
      case 'orchestrator': {
        const ok = isFunction(object as Orchestrator, 'execute');
        if (ok) result.pass('orchestrator_execute', 'has execute(prompt, run)');
        else result.fail('orchestrator_execute', 'the mounted orchestrator has no execute function');
        if (ok) await behaviour(result, orchestratorChecks, module);
        break;
      }
      case 'context': {
        let all = true;
        for (const method of ['addMessage', 'getMessagesForRequest', 'getMessages', 'setMessages', 'clear']) {
          const fn = (object as Record<string, unknown>)[method];
          const check = `context_${method.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
          if (typeof fn !== 'function') {
            all = false;
            result.fail(check, `the context manager has no ${method} function`);
          } else if ((method === 'addMessage' || method === 'setMessages') && fn.length < 1) {
            result.fail(check, `${method} declares no parameters`, 'warning');
          } else {
            result.pass(check, `has ${method}`);
          }
        }
        if (all) await behaviour(result, contextChecks as readonly ConformanceCheck[], module);
        break;
      }
      case 'resolver':
        if (isFunction(object, 'resolve'))
          result.pass('resolver_resolve', 'has resolve(moduleId, { sourceHint })');
        else result.fail('resolver_resolve', 'the mounted module source resolver has no resolve function');
        break;
    }
  }
  await runCleanups(result, coordinator, logger, returned);
}

/** Run the cleanup mount returned, then every registered one; errors become a warning. */
async function runCleanups(
  result: ValidationResult,
  coordinator: TestCoordinator,
  logger: RecordingLogger,
  returned: unknown,
): Promise<void> {
  const problems: string[] = [];
  if (typeof returned === 'function') {
    try {
      await returned();
    } catch (error) {
      problems.push(`the cleanup mount returned threw: ${errorMessage(error)}`);
    }
  }
  const from = logger.records.length;
  try {
    await coordinator.cleanup();
  } catch (error) {
    problems.push(`a registered cleanup threw: ${errorMessage(error)}`);
  }
  problems.push(...logger.problemsSince(from).filter((m) => m.startsWith('cleanup failed')));
  if (problems.length === 0) result.pass('cleanup', 'cleanups ran without errors', 'warning');
  else result.fail('cleanup', problems.join('\n'), 'warning');
}
