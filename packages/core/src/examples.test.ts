/**
 * The README's examples, run. Each example is a file in `__fixtures__/readme/`
 * (type-checked with the package); the README shows it verbatim, with the
 * relative imports written as package imports. The first test fails when the
 * README and the files drift apart; the others run the examples.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codeBlocks, shownExample } from '@amplifier/test-fixtures';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_EVENTS } from './events.js';
import { clearDiscoveryCache } from './loader/discovery.js';
import { validateMountPlan } from './mount-plan.js';

const SRC = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(SRC, '__fixtures__/readme');
const README = readFileSync(path.join(SRC, '../README.md'), 'utf8');

const PACKAGE_IMPORTS: Record<string, string> = {
  [path.join(SRC, 'index.js')]: '@amplifier/core',
  // Stand-ins for the modules the composed-session example imports.
  ...Object.fromEntries(
    ['context-simple', 'loop-basic', 'provider-mock'].map((id) => [
      path.join(FIXTURES, 'modules', `${id}.js`),
      `@amplifier/${id}`,
    ]),
  ),
};
const shown = (file: string): string => shownExample(path.join(FIXTURES, file), PACKAGE_IMPORTS);
const blocks = codeBlocks(README);

describe('README', () => {
  it.each([
    'hook.ts',
    'events.ts',
    'tool.ts',
    'typed-tool.ts',
    'composed-session.ts',
    'module/package.json',
    'module/index.ts',
    'session.ts',
    'cancellation.ts',
    'loader.ts',
  ])('shows %s exactly as tested', (file) => {
    const code = shown(file);
    expect(
      blocks.some((b) => b.code === code),
      `README.md has no code block equal to __fixtures__/readme/${file}:\n${code}`,
    ).toBe(true);
  });

  it('lists every canonical event', () => {
    for (const event of ALL_EVENTS) expect(README).toContain(`\`${event}\``);
  });

  it('shows mount plans that validate', () => {
    const plans = blocks.filter((b) => b.lang === 'json' && b.code.includes('"session"'));
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) expect(validateMountPlan(JSON.parse(plan.code)).errors).toEqual([]);
  });
});

describe('README examples run', () => {
  it('a hook: deny short-circuits, modify chains, handlers are listed in order', async () => {
    const { allowed, denied, hooks } = await import('./__fixtures__/readme/hook.js');
    expect(denied).toEqual({ action: 'deny', reason: 'rm -rf is not allowed' });
    expect(allowed.action).toBe('continue');
    expect(allowed.data).toMatchObject({ tool_name: 'bash', tool_input: { command: 'ls' }, checked: true });
    expect(String(allowed.data?.timestamp)).toMatch(/\+00:00$/);
    expect(hooks.listHandlers('tool:pre')).toEqual({ 'tool:pre': ['no-rm-rf', 'mark-checked'] });
  });

  it('typed events: typed handlers ran, the wrong payload was still emitted (types only), any name works', async () => {
    const { other, problems, tools } = await import('./__fixtures__/readme/events.js');
    expect(tools).toEqual(['bash', 42]);
    expect(problems).toBe(2);
    expect(other).toEqual({ action: 'continue', data: { pid: process.pid } });
  });

  it('a tool: mounted, executed, serialized; a bad call is a result, not an exception', async () => {
    const { bad, forTheModel, result, wordCount } = await import('./__fixtures__/readme/tool.js');
    expect(result).toEqual({ success: true, output: { words: 3 } });
    expect(forTheModel).toBe('{"words":3}');
    expect(bad).toEqual({ success: false, error: { message: 'text is required and must be a string' } });
    await expect(wordCount.execute({ text: 'x' }, { signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it('a typed tool: typed from zod, validated, the failure tells the model what to fix', async () => {
    const { bad, result, wordCount } = await import('./__fixtures__/readme/typed-tool.js');
    expect(result).toEqual({ success: true, output: { words: 3 } });
    expect(bad).toMatchObject({ success: false, error: { type: 'ValidationError' } });
    expect(bad.error?.message).toMatch(
      /^invalid input for tool 'word_count': text: Too small.*call it again\.$/,
    );
    expect(wordCount.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
  });

  it('a composed session: module objects and a defined tool, no loader', async () => {
    const { composed } = await import('./__fixtures__/readme/composed-session.js');
    expect(await composed('hello')).toBe('HELLO');
  });

  it('cancellation: graceful then immediate, one event per change, the signal aborts with CancelledError', async () => {
    const { afterGraceful, cancelled, requested } = await import('./__fixtures__/readme/cancellation.js');
    expect(afterGraceful).toEqual({ graceful: true, aborted: false });
    expect(cancelled).toBe(true);
    expect(requested).toEqual(['graceful', 'immediate']);
  });
});

/**
 * A project with the README's module package installed (compiled from its
 * TypeScript, as `tsc` would) plus minimal stand-ins for loop-basic,
 * context-simple and provider-mock: core cannot depend on its own modules, so
 * the stand-ins do just enough (a tool-calling loop, an array, a scripted model).
 */
describe('README examples with an installed module', () => {
  let project: string;

  function write(rel: string, text: string): void {
    const file = path.join(project, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }

  function standIn(id: string, type: string, code: string): void {
    write(
      `node_modules/@amplifier/${id}/package.json`,
      JSON.stringify({
        name: `@amplifier/${id}`,
        version: '0.0.0-stand-in',
        type: 'module',
        main: 'index.js',
        amplifier: { module: id, type },
      }),
    );
    write(`node_modules/@amplifier/${id}/index.js`, code);
  }

  beforeAll(() => {
    project = mkdtempSync(path.join(os.tmpdir(), 'amp-readme-'));
    const deps = [
      'amplifier-module-hello',
      '@amplifier/loop-basic',
      '@amplifier/context-simple',
      '@amplifier/provider-mock',
    ];
    write(
      'package.json',
      JSON.stringify({
        name: 'my-app',
        type: 'module',
        dependencies: Object.fromEntries(deps.map((d) => [d, '*'])),
      }),
    );
    write(
      'node_modules/amplifier-module-hello/package.json',
      readFileSync(path.join(FIXTURES, 'module/package.json'), 'utf8'),
    );
    // The module imports core at run time (ownConfig): as a package, this core (built).
    const source = readFileSync(path.join(FIXTURES, 'module/index.ts'), 'utf8').replace(
      "'../../../index.js'",
      "'@amplifier/core'",
    );
    // (A re-export of the build by file URL: a package import from inside vitest would pick core's sources.)
    write(
      'node_modules/@amplifier/core/package.json',
      JSON.stringify({ name: '@amplifier/core', type: 'module', exports: './index.js' }),
    );
    write(
      'node_modules/@amplifier/core/index.js',
      `export * from ${JSON.stringify(pathToFileURL(path.join(SRC, '../dist/index.js')).href)};\n`,
    );
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    write('node_modules/amplifier-module-hello/dist/index.js', js);
    standIn(
      'loop-basic',
      'orchestrator',
      `export function mount(coordinator) {
  coordinator.mount('orchestrator', { async execute(prompt, { context, providers, tools }) {
    await context.addMessage({ role: 'user', content: prompt });
    const provider = [...providers.values()][0];
    for (;;) {
      const response = await provider.complete({ messages: await context.getMessagesForRequest() });
      const calls = provider.parseToolCalls(response);
      const text = response.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      await context.addMessage({ role: 'assistant', content: text, tool_calls: calls.map((c) => ({ id: c.id, tool: c.name, arguments: c.arguments })) });
      if (calls.length === 0) return text;
      for (const call of calls) {
        const result = await tools.get(call.name).execute(call.arguments);
        await context.addMessage({ role: 'tool', tool_call_id: call.id, content: String(result.output) });
      }
    }
  } });
}\n`,
    );
    standIn(
      'context-simple',
      'context',
      `export function mount(coordinator) {
  let messages = [];
  coordinator.mount('context', {
    async addMessage(m) { messages.push(m); },
    async getMessagesForRequest() { return [...messages]; },
    async getMessages() { return [...messages]; },
    async setMessages(ms) { messages = [...ms]; },
    async clear() { messages = []; },
  });
}\n`,
    );
    standIn(
      'provider-mock',
      'provider',
      `export function mount(coordinator) {
  coordinator.mount('providers', {
    name: 'mock',
    getInfo: () => ({ id: 'mock', display_name: 'Mock' }),
    async listModels() { return []; },
    async complete({ messages }) {
      const last = messages[messages.length - 1];
      if (last.role === 'tool') return { content: [{ type: 'text', text: last.content }] };
      const name = String(last.content).split(' ').pop();
      return { content: [], tool_calls: [{ id: 'call_1', name: 'hello', arguments: { name } }] };
    },
    parseToolCalls: (response) => response.tool_calls ?? [],
  });
}\n`,
    );
    clearDiscoveryCache();
  });

  afterAll(() => {
    clearDiscoveryCache();
    rmSync(project, { recursive: true, force: true });
  });

  it('a session from a mount plan: the plan loads, the tool runs, the answer comes back', async () => {
    const { greetAda } = await import('./__fixtures__/readme/session.js');
    expect(await greetAda(project)).toBe('Welcome, Ada!');
  });

  it('the loader: discover lists the module, load mounts it with its config, a missing id says MODULE_NOT_FOUND', async () => {
    const { loadHello } = await import('./__fixtures__/readme/loader.js');
    const { modules, result, notFound } = await loadHello(project);
    expect(modules.find((m) => m.id === 'hello')).toMatchObject({
      id: 'hello',
      type: 'tool',
      name: 'amplifier-module-hello',
      version: '1.0.0',
      mount_point: 'tools',
    });
    expect(result).toEqual({ success: true, output: 'Hi, Grace!' });
    expect(notFound).toBe('MODULE_NOT_FOUND');
  });
});
