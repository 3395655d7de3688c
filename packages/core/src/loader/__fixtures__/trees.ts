/**
 * The loader tests' fixtures, on top of the package-tree builders of the test
 * kit (`../../testing/package-trees.ts`): module entries that record what
 * happens to them on `globalThis.__amplifierFixtures` (see `fixtureLog()`):
 * how often the file was evaluated (a module-level counter, keyed by
 * `import.meta.url`) and each `mount` call with its config; `writePackage`,
 * `installNpm` and `installPnpm` that give a package such an entry when its
 * spec names no files; and the end-to-end session project. Depends on
 * `node:` modules and the kit only, so a plain `node` can run it transpiled.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as kit from '@amplifier/test-fixtures';
import { moduleIdOf, type PackageSpec, writeFiles, writeProject } from '@amplifier/test-fixtures';
import type { MountPlan } from '../../mount-plan.js';

/** What the generated modules record. */
export interface FixtureLog {
  /** Evaluations per entry file URL. */
  imports: Record<string, number>;
  mounts: { id: string; url: string; config: Record<string, unknown> }[];
  ready: string[];
  /** Free-form records (cleanups, hook calls, provider requests) of the session modules. */
  events: string[];
}

/** The shared log written by generated module entries (created on first use). */
export function fixtureLog(): FixtureLog {
  const g = globalThis as { __amplifierFixtures?: FixtureLog };
  g.__amplifierFixtures ??= { imports: {}, mounts: [], ready: [], events: [] };
  return g.__amplifierFixtures;
}

/** A fresh directory under the OS temp dir (its real path). */
export function makeTempDir(prefix = 'amp-loader-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Remove a directory made by `makeTempDir`. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

const LOG_PRELUDE = `const log = (globalThis.__amplifierFixtures ??= { imports: {}, mounts: [], ready: [], events: [] });`;

/**
 * The source of a module entry that records its evaluation and its mounts and
 * registers a capability `fixture.<id>` holding its config. `extra` is
 * appended verbatim (more exports, a thrown error, ...).
 */
export function moduleSource(id: string, extra = ''): string {
  return `${LOG_PRELUDE}
log.imports[import.meta.url] = (log.imports[import.meta.url] ?? 0) + 1;
export const moduleId = ${JSON.stringify(id)};
export async function mount(coordinator, config) {
  log.mounts.push({ id: ${JSON.stringify(id)}, url: import.meta.url, config });
  coordinator.registerCapability(${JSON.stringify(`fixture.${id}`)}, config);
}
${extra}`;
}

/** `spec` with `moduleSource(id)` as its entry when it names no files. */
function recorded(spec: PackageSpec): PackageSpec {
  return spec.files === undefined ? { ...spec, files: { 'index.js': moduleSource(moduleIdOf(spec)) } } : spec;
}

/** The test kit's `writePackage`, with a recording entry by default. */
export function writePackage(dir: string, spec: PackageSpec): string {
  return kit.writePackage(dir, recorded(spec));
}

/** The test kit's `installNpm`, with a recording entry by default. */
export function installNpm(root: string, specs: readonly PackageSpec[]): string[] {
  return kit.installNpm(root, specs.map(recorded));
}

/** The test kit's `installPnpm`, with a recording entry by default. */
export function installPnpm(
  root: string,
  specs: readonly PackageSpec[],
  options: { direct?: readonly string[] } = {},
): string[] {
  return kit.installPnpm(root, specs.map(recorded), options);
}

/** Entry source of a session module: the log prelude, the import counter and `body` (which defines mount). */
function sessionModule(body: string): string {
  return `${LOG_PRELUDE}
log.imports[import.meta.url] = (log.imports[import.meta.url] ?? 0) + 1;
${body}`;
}

const E2E_ORCHESTRATOR = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'e2e-loop', url: import.meta.url, config });
  coordinator.mount('orchestrator', {
    async execute(prompt, run) {
      await run.context.addMessage({ role: 'user', content: prompt });
      const provider = run.providers.values().next().value;
      const tools = [...run.tools.values()].map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema ?? {} }));
      for (let step = 0; step < (config.max_steps ?? 4); step++) {
        const messages = await run.context.getMessagesForRequest({ provider });
        const response = await provider.complete({ messages, tools }, { signal: run.signal });
        const calls = provider.parseToolCalls(response);
        const text = response.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
        await run.context.addMessage({ role: 'assistant', content: text, ...(calls.length > 0 && { tool_calls: calls }) });
        if (calls.length === 0) return text;
        for (const call of calls) {
          await run.hooks.emit('tool:pre', { tool_name: call.name, tool_input: call.arguments });
          const tool = run.tools.get(call.name);
          const result = tool ? await tool.execute(call.arguments, { signal: run.signal, toolCallId: call.id })
            : { success: false, error: { message: 'no tool ' + call.name } };
          await run.hooks.emit('tool:post', { tool_name: call.name, tool_response: result });
          await run.context.addMessage({ role: 'tool', tool_call_id: call.id, content: String(result.output ?? result.error?.message) });
        }
      }
      return 'step limit reached';
    },
  });
  return () => { log.events.push('cleanup:e2e-loop'); };
}
`);

const E2E_CONTEXT = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'e2e-context', url: import.meta.url, config });
  let messages = [];
  coordinator.mount('context', {
    async addMessage(message) { messages.push(message); },
    async getMessagesForRequest() { return [...messages]; },
    async getMessages() { return [...messages]; },
    async setMessages(next) { messages = [...next]; },
    async clear() { messages = []; },
  });
  return async () => { log.events.push('cleanup:e2e-context'); };
}
`);

const E2E_PROVIDER = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'provider-e2e', url: import.meta.url, config });
  coordinator.mount('providers', {
    name: 'e2e',
    getInfo() { return { id: 'e2e', display_name: 'Scripted', defaults: {} }; },
    async listModels() { return []; },
    async complete(request) {
      const last = request.messages.at(-1);
      log.events.push('provider:complete:' + last.role);
      if (last.role === 'tool') return { content: [{ type: 'text', text: 'The tool said: ' + last.content }], finish_reason: 'stop' };
      return {
        content: [{ type: 'text', text: '' }],
        tool_calls: [{ id: 'call_1', name: 'echo', arguments: { text: config.say ?? 'hi' } }],
        finish_reason: 'tool_calls',
      };
    },
    parseToolCalls(response) { return response.tool_calls ?? []; },
  }, { name: 'e2e' });
  return () => { log.events.push('cleanup:provider-e2e'); };
}
`);

const E2E_TOOL = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'tool-echo-e2e', url: import.meta.url, config });
  coordinator.mount('tools', {
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(input) { return { success: true, output: (config.prefix ?? '') + input.text }; },
  });
  return () => { log.events.push('cleanup:tool-echo-e2e'); };
}
`);

const E2E_HOOK = sessionModule(`export async function mount(coordinator, config) {
  log.mounts.push({ id: 'hooks-record-e2e', url: import.meta.url, config });
  const off = ['session:start', 'tool:pre', 'tool:post', 'session:end'].map((event) =>
    coordinator.hooks.register(event, () => { log.events.push('hook:' + event); }, { name: 'record' }));
  return () => { for (const unregister of off) unregister(); log.events.push('cleanup:hooks-record-e2e'); };
}
export async function onSessionReady(coordinator) { log.ready.push('hooks-record-e2e'); }
`);

/**
 * A project for an end-to-end session, with five small modules laid out five
 * ways: the orchestrator hoisted npm-style (`@amplifier/e2e-loop`), the context
 * in a pnpm store behind a symlink (`@amplifier/e2e-context`), the provider
 * under the other conventional name (`amplifier-module-provider-e2e`), the tool
 * with an unconventional name found through the project's declared
 * dependencies (`acme-echo-tool`, id `tool-echo-e2e`), and a hook in a plain
 * folder given as a source path. Returns the mount plan that uses them.
 */
export function writeSessionProject(root: string): MountPlan {
  writeProject(root, { '@amplifier/e2e-context': '1.0.0', 'acme-echo-tool': '^1.0.0' });
  installNpm(root, [
    {
      name: '@amplifier/e2e-loop',
      type: 'orchestrator',
      coreRange: '*',
      files: { 'index.js': E2E_ORCHESTRATOR },
    },
    {
      name: 'amplifier-module-provider-e2e',
      type: 'provider',
      coreRange: '*',
      files: { 'index.js': E2E_PROVIDER },
    },
    { name: 'acme-echo-tool', id: 'tool-echo-e2e', type: 'tool', files: { 'index.js': E2E_TOOL } },
  ]);
  installPnpm(root, [
    {
      name: '@amplifier/e2e-context',
      type: 'context',
      coreRange: 'workspace:*',
      files: { 'index.js': E2E_CONTEXT },
    },
  ]);
  writeFiles(root, { 'local-hooks/index.js': E2E_HOOK });
  return {
    session: { orchestrator: 'e2e-loop', context: { module: 'e2e-context', config: { keep: 10 } } },
    providers: [{ module: 'provider-e2e', config: { say: 'ping' } }],
    tools: [{ module: 'tool-echo-e2e', config: { prefix: 'echo: ' } }],
    hooks: [{ module: 'hooks-record-e2e', source: './local-hooks' }],
  };
}
