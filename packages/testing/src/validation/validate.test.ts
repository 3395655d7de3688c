import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearDiscoveryCache, VERSION } from '@amplifier/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MODULE_TYPE_DESCRIPTIONS, type ValidationCheck, ValidationResult, validateModule } from './index.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'amp-validate-'));
  writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  clearDiscoveryCache();
});
afterEach(() => {
  clearDiscoveryCache();
  rmSync(root, { recursive: true, force: true });
});

interface PackageSpec {
  name?: string;
  amplifier?: unknown;
  peer?: string;
  files: Record<string, string>;
}

/** Write a module package (package.json + files) at `root/<rel>`; returns its directory. */
function writePackage(rel: string, spec: PackageSpec): string {
  const dir = path.join(root, rel);
  mkdirSync(dir, { recursive: true });
  const pkg: Record<string, unknown> = {
    name: spec.name ?? path.basename(dir),
    version: '1.2.3',
    type: 'module',
    main: './index.js',
  };
  if (spec.amplifier !== undefined) pkg.amplifier = spec.amplifier;
  if (spec.peer !== undefined) pkg.peerDependencies = { '@amplifier/core': spec.peer };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  for (const [file, text] of Object.entries(spec.files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** A module folder `./modules/<id>` declaring `type`, with `code` as its index.js. */
function writeModule(id: string, type: string, code: string, extra: Partial<PackageSpec> = {}): string {
  return writePackage(`modules/${id}`, {
    amplifier: { module: id, type },
    files: { 'index.js': code },
    ...extra,
  });
}

function check(result: ValidationResult, name: string): ValidationCheck {
  const found = result.checks.filter((c) => c.name === name);
  if (found.length === 0) throw new Error(`no check ${name} in:\n${result.report()}`);
  return found[0]!;
}

function failedNames(result: ValidationResult): string[] {
  return result.checks.filter((c) => !c.passed).map((c) => c.name);
}

const validate = (target: string, options: Parameters<typeof validateModule>[1] = {}) =>
  validateModule(target, { baseDir: root, searchPaths: [], ...options });

const GOOD_TOOL = `
export async function mount(coordinator, config) {
  const greeting = typeof config.greeting === 'string' ? config.greeting : 'Hello';
  coordinator.mount('tools', {
    name: 'hello',
    description: 'Greets someone.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    executionProfile: { resourceKeys: () => [{ key: 'hello', mode: 'read' }] },
    async execute(input) {
      if (typeof input.name !== 'string') return { success: false, error: { message: 'name is required' } };
      return { success: true, output: greeting + ', ' + input.name };
    },
  });
  return () => coordinator.unmount('tools', { name: 'hello' });
}
`;

const MINI_CONTEXT = `
class Memory {
  messages = [];
  async addMessage(m) { this.messages.push(m); }
  async getMessagesForRequest() { return this.messages.filter((m) => typeof m?.role === 'string'); }
  async getMessages() { return [...this.messages]; }
  async setMessages(ms) { this.messages = [...ms]; }
  async clear() { CLEAR }
}
export function mount(coordinator) { coordinator.mount('context', new Memory()); }
`;

const MINI_LOOP = `
export function mount(coordinator) {
  coordinator.mount('orchestrator', {
    async execute(prompt, run) {
      await run.context.addMessage({ role: 'user', content: prompt });
      const provider = [...run.providers.values()][0];
      for (let i = 0; i < 5; i++) {
        if (run.signal?.aborted) return '';
        const response = await provider.complete({ messages: await run.context.getMessagesForRequest() });
        const text = response.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
        const calls = provider.parseToolCalls(response);
        await run.context.addMessage({ role: 'assistant', content: text });
        if (calls.length === 0) return RETURN;
        for (const call of calls) {
          const result = await run.tools.get(call.name).execute(call.arguments, {});
          await run.context.addMessage({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
        }
      }
      return '';
    },
  });
}
`;

const PROVIDER = `
export function mount(coordinator, config) {
  if (!config.api_key) return;
  coordinator.mount('providers', {
    name: 'acme',
    getInfo: () => (INFO),
    async listModels() { return []; },
    async complete(request) { return { content: [{ type: 'text', text: 'hi' }] }; },
    parseToolCalls: (response) => PARSE,
  });
}
`;

const HOOK = `
export function mount(coordinator) {
  const off = coordinator.hooks.register('tool:pre', (event, data) => {
    BODY
  }, { name: 'guard' });
  return off;
}
`;

describe('ValidationResult', () => {
  it('an empty result passes; a failed error fails; a failed warning still passes', () => {
    const empty = new ValidationResult('x', 'tool');
    expect(empty.passed).toBe(true);
    expect(empty.summary()).toBe('PASSED: 0/0 checks passed (0 errors, 0 warnings)');
    const warned = new ValidationResult('x', 'tool');
    warned.pass('a', 'ok');
    warned.fail('b', 'meh', 'warning');
    warned.fail('c', 'fyi', 'info');
    expect(warned.passed).toBe(true);
    expect(warned.warnings.map((c) => c.name)).toEqual(['b']);
    expect(warned.summary()).toBe('PASSED: 1/3 checks passed (0 errors, 1 warnings)');
    warned.fail('d', 'broken\nsecond line');
    expect(warned.passed).toBe(false);
    expect(warned.errors.map((c) => c.name)).toEqual(['d']);
    expect(warned.summary()).toBe('FAILED: 1/4 checks passed (1 errors, 1 warnings)');
    expect(warned.report().split('\n')).toEqual([
      'Validating tool module: x',
      'FAILED: 1/4 checks passed (1 errors, 1 warnings)',
      '',
      '✓ a: ok',
      '✗ [warning] b: meh',
      '✗ [info] c: fyi',
      '✗ [error] d: broken',
      '      second line',
    ]);
    expect(JSON.parse(JSON.stringify(warned))).toMatchObject({
      target: 'x',
      module_type: 'tool',
      passed: false,
    });
    expect(() => warned.assertPassed('tool-x')).toThrow(
      "Module 'tool-x' failed validation: FAILED: 1/4 checks passed (1 errors, 1 warnings). Errors: d: broken\nsecond line",
    );
    let thrown: unknown;
    try {
      warned.assertPassed();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'MODULE_VALIDATION_FAILED', moduleId: 'x' });
    expect(() => empty.assertPassed()).not.toThrow();
  });

  it('describes every module type in one line', () => {
    expect(Object.keys(MODULE_TYPE_DESCRIPTIONS).sort()).toEqual(
      ['context', 'hook', 'orchestrator', 'provider', 'resolver', 'tool'].sort(),
    );
  });
});

describe('S. module validators: structure', () => {
  it('a good tool module folder passes every check', async () => {
    writeModule('tool-hello', 'tool', GOOD_TOOL);
    const result = await validate('./modules/tool-hello');
    expect(failedNames(result)).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.moduleType).toBe('tool');
    for (const name of [
      'module_resolvable',
      'module_type',
      'module_importable',
      'mount_exists',
      'mount_signature',
      'module_loadable',
      'protocol_compliance',
      'tool_name',
      'tool_description',
      'tool_input_schema',
      'tool_execute',
      'tool_execute_empty_input',
      'tool_execution_profile',
      'cleanup',
    ]) {
      expect(check(result, name).passed, name).toBe(true);
    }
    expect(result.summary()).toMatch(/^PASSED: (\d+)\/\1 checks passed \(0 errors, 0 warnings\)$/);
    expect(check(result, 'protocol_compliance').message).toBe('mounted 1 tool(s): hello');
  });

  it('S156: a module without a mount function fails validation', async () => {
    writeModule('no-mount', 'tool', 'export const version = 1;\n');
    const result = await validate('./modules/no-mount');
    expect(result.passed).toBe(false);
    expect(check(result, 'mount_exists').message).toContain('no mount export');
    writeModule('mount-number', 'tool', 'export const mount = 42;\n');
    const numeric = await validate('./modules/mount-number');
    expect(check(numeric, 'mount_exists').message).toContain('mount is a number, not a function');
  });

  it('S156 (adapted): a mount declaring no parameters fails; a sync mount is accepted', async () => {
    writeModule('no-params', 'tool', "export function mount() { throw new Error('never called'); }\n");
    const result = await validate('./modules/no-params');
    expect(result.passed).toBe(false);
    expect(check(result, 'mount_signature').passed).toBe(false);
    expect(check(result, 'mount_signature').message).toContain('called as mount(coordinator, config)');
    writeModule(
      'sync-mount',
      'tool',
      GOOD_TOOL.replace('export async function mount', 'export function mount'),
    );
    expect((await validate('./modules/sync-mount')).passed).toBe(true);
  });

  it('a default export with mount is accepted; onSessionReady must be a function', async () => {
    writeModule(
      'default-export',
      'hook',
      'export default { mount(c) { c.hooks.register("session:start", () => {}); } };\n',
    );
    expect(failedNames(await validate('./modules/default-export'))).toEqual([]);
    writeModule(
      'bad-ready',
      'hook',
      'export function mount(c) { c.hooks.register("session:start", () => {}); }\nexport const onSessionReady = "soon";\n',
    );
    const bad = await validate('./modules/bad-ready');
    expect(check(bad, 'on_session_ready').message).toContain('onSessionReady is a string');
    expect(bad.passed).toBe(false);
    writeModule(
      'ready-throws',
      'hook',
      'export function mount(c) { c.hooks.register("session:start", () => {}); }\nexport function onSessionReady(c) { throw new Error("needs a provider"); }\n',
    );
    const throws = await validate('./modules/ready-throws');
    expect(throws.passed).toBe(true);
    expect(check(throws, 'on_session_ready_runs')).toMatchObject({ passed: false, severity: 'warning' });
    expect(check(throws, 'on_session_ready_runs').message).toContain('needs a provider');
  });

  it('a nonexistent path, an unknown id (with the npm install line), a syntax error', async () => {
    const missing = await validate('./modules/nope');
    expect(missing.passed).toBe(false);
    expect(check(missing, 'module_resolvable').message).toContain('does not exist');
    const unknown = await validate('tool-nowhere');
    expect(check(unknown, 'module_resolvable').message).toContain('npm install @amplifier/tool-nowhere');
    writeModule('broken-syntax', 'tool', 'export function mount(c, {) {}\n');
    const syntax = await validate('./modules/broken-syntax');
    expect(check(syntax, 'module_importable').passed).toBe(false);
    expect(syntax.checks.map((c) => c.name)).not.toContain('mount_exists');
  });

  it('an id that names a folder here gets a hint to pass it as a path', async () => {
    writeModule('tool-hello', 'tool', GOOD_TOOL);
    const result = await validateModule('tool-hello', {
      baseDir: path.join(root, 'modules'),
      searchPaths: [],
    });
    expect(check(result, 'module_resolvable').message).toContain('pass ./tool-hello to validate it');
  });

  it('an invalid "amplifier" field, a type mismatch, a missing type', async () => {
    writePackage('modules/bad-field', {
      amplifier: { module: 'bad-field', type: 'tool', extra: 1 },
      files: { 'index.js': GOOD_TOOL },
    });
    const invalid = await validate('./modules/bad-field');
    expect(check(invalid, 'module_resolvable').message).toContain('Invalid "amplifier" field');
    writeModule('tool-hello', 'tool', GOOD_TOOL);
    const mismatch = await validate('./modules/tool-hello', { type: 'provider' });
    expect(check(mismatch, 'module_type').message).toContain(
      "declares type 'tool' but it was validated as 'provider'",
    );
    expect(mismatch.passed).toBe(false);
    writeFileSync(path.join(root, 'plain.mjs'), GOOD_TOOL);
    const untyped = await validate('./plain.mjs');
    expect(check(untyped, 'module_type').message).toContain('pass the type');
    expect(untyped.passed).toBe(false);
  });

  it('a plain file validated with a type passes with a warning about the missing manifest', async () => {
    writeFileSync(path.join(root, 'plain.mjs'), GOOD_TOOL);
    const result = await validate('./plain.mjs', { type: 'tool' });
    expect(result.passed).toBe(true);
    expect(result.warnings.map((c) => c.name)).toEqual(['module_manifest']);
    expect(check(result, 'tool_execute_empty_input').passed).toBe(true);
  });

  it('finds a module by id and by package name the way a session does', async () => {
    writePackage('node_modules/@amplifier/tool-hello', {
      name: '@amplifier/tool-hello',
      amplifier: { module: 'tool-hello', type: 'tool' },
      files: { 'index.js': GOOD_TOOL },
    });
    writePackage('node_modules/@acme/greeter', {
      name: '@acme/greeter',
      amplifier: { module: 'greeter', type: 'tool' },
      files: { 'index.js': GOOD_TOOL },
    });
    const byId = await validate('tool-hello');
    expect(byId.passed).toBe(true);
    expect(check(byId, 'module_resolvable').message).toContain('via @amplifier/tool-hello');
    expect(check(byId, 'module_loadable').message).toContain('@amplifier/tool-hello@1.2.3');
    writePackage('node_modules/amplifier-module-hi', {
      name: 'amplifier-module-hi',
      amplifier: { module: 'hi-there', type: 'tool' },
      files: { 'index.js': GOOD_TOOL },
    });
    writePackage('vendor/some-folder', {
      amplifier: { module: 'folder-tool', type: 'tool' },
      files: { 'index.js': GOOD_TOOL },
    });
    // The module id comes from "amplifier".module, whatever the folder or package is called.
    expect(failedNames(await validate('./vendor/some-folder'))).toEqual([]);
    expect(failedNames(await validate('amplifier-module-hi'))).toEqual([]);
    expect(failedNames(await validate(`file://${path.join(root, 'vendor/some-folder')}`))).toEqual([]);
    const byName = await validate('@acme/greeter');
    expect(byName.passed).toBe(true);
    expect(check(byName, 'module_resolvable').message).toContain("source '@acme/greeter'");
  });

  it("the loader's @amplifier/core peer range check applies", async () => {
    writeModule('too-new', 'tool', GOOD_TOOL, { peer: '>=99.0.0' });
    const result = await validate('./modules/too-new');
    expect(result.passed).toBe(false);
    const message = check(result, 'module_loadable').message;
    expect(message).toContain('needs @amplifier/core >=99.0.0');
    expect(message).toContain(`${VERSION} is running`);
    writeModule('fits', 'tool', GOOD_TOOL, { peer: `^${VERSION}` });
    expect((await validate('./modules/fits')).passed).toBe(true);
  });
});

describe('S. module validators: mounting', () => {
  it('S157: mounts with the config given (default {}) and runs both cleanups, ignoring their errors', async () => {
    writeModule(
      'records',
      'tool',
      `
import { appendFileSync } from 'node:fs';
const log = new URL('./log.txt', import.meta.url);
export function mount(coordinator, config) {
  appendFileSync(log, 'config ' + JSON.stringify(config) + '\\n');
  coordinator.mount('tools', { name: 'rec', description: 'Records.', async execute() { return { success: true, output: 'ok' }; } });
  coordinator.registerCleanup(() => { appendFileSync(log, 'registered cleanup\\n'); throw new Error('registered failed'); });
  return () => { appendFileSync(log, 'returned cleanup\\n'); throw new Error('returned failed'); };
}
`,
    );
    const log = path.join(root, 'modules/records/log.txt');
    const first = await validate('./modules/records');
    expect(first.passed).toBe(true);
    expect(check(first, 'cleanup')).toMatchObject({ passed: false, severity: 'warning' });
    expect(check(first, 'cleanup').message).toContain('returned failed');
    expect(check(first, 'cleanup').message).toContain('registered failed');
    expect(readFileSync(log, 'utf8')).toBe('config {}\nreturned cleanup\nregistered cleanup\n');
    rmSync(log);
    await validate('./modules/records', { config: { root: '/srv' } });
    expect(readFileSync(log, 'utf8').split('\n')[0]).toBe('config {"root":"/srv"}');
  });

  it('S158: nothing mounted but a callable returned passes with a warning', async () => {
    writeModule('conditional', 'tool', 'export function mount(coordinator, config) { return () => {}; }\n');
    const result = await validate('./modules/conditional');
    expect(result.passed).toBe(true);
    expect(result.warnings.map((c) => c.name)).toEqual(['protocol_compliance']);
    expect(check(result, 'protocol_compliance').message).toContain('may be conditional');
  });

  it('S158: nothing mounted and nothing usable returned fails with "No <type> was mounted"', async () => {
    writeModule('empty', 'tool', 'export function mount(coordinator, config) {}\n');
    const result = await validate('./modules/empty');
    expect(result.passed).toBe(false);
    expect(check(result, 'protocol_compliance').message).toMatch(
      /^No tool was mounted and mount\(\) returned nothing usable/,
    );
  });

  it('config passthrough: a provider without credentials mounts nothing; with them it passes', async () => {
    writeModule(
      'provider-acme',
      'provider',
      PROVIDER.replace('INFO', "{ id: 'acme', display_name: 'Acme' }").replace(
        'PARSE',
        'response.tool_calls ?? []',
      ),
    );
    const without = await validate('./modules/provider-acme');
    expect(without.passed).toBe(false);
    expect(check(without, 'protocol_compliance').message).toContain('No provider was mounted');
    const withKey = await validate('./modules/provider-acme', { config: { api_key: 'sk-test' } });
    expect(failedNames(withKey)).toEqual([]);
    for (const name of [
      'provider_name',
      'provider_get_info',
      'provider_list_models',
      'provider_complete',
      'provider_parse_tool_calls',
    ]) {
      expect(check(withKey, name).passed, name).toBe(true);
    }
  });

  it('a mount that throws fails protocol_compliance with the error and the config it got', async () => {
    writeModule(
      'needs-root',
      'tool',
      "export function mount(c, config) { if (!config.root) throw new Error('config.root is required'); }\n",
    );
    const result = await validate('./modules/needs-root');
    expect(check(result, 'protocol_compliance').message).toContain('config.root is required');
    expect(check(result, 'protocol_compliance').message).toContain('config given: {}');
  });

  it('a mount that never settles fails after timeoutMs instead of hanging', async () => {
    writeModule('hangs', 'tool', 'export function mount(c) { return new Promise(() => {}); }\n');
    const result = await validate('./modules/hangs', { timeoutMs: 50 });
    expect(check(result, 'protocol_compliance').message).toContain('did not settle within 50 ms');
  });

  it('the module sees session.working_dir like in a session', async () => {
    writeModule(
      'wd',
      'tool',
      `export function mount(c) { const wd = c.getCapability('session.working_dir'); if (typeof wd !== 'string') throw new Error('no working dir');
  c.mount('tools', { name: 'wd', description: wd, async execute() { return { success: true, output: wd }; } }); }\n`,
    );
    const result = await validate('./modules/wd', { workingDir: '/work/here' });
    expect(result.passed).toBe(true);
    expect(check(result, 'tool_description').message).toContain('/work/here');
  });
});

describe('S. module validators: per type', () => {
  it('tool: a throwing execute, a bad schema, a non-snake name and no description', async () => {
    writeModule(
      'tool-bad',
      'tool',
      `export function mount(c) {
  c.mount('tools', { name: 'ReadFile', description: '', inputSchema: { type: 'object', properties: { p: { type: 'nope' } } },
    async execute(input) { return { success: true, output: input.path.trim() }; } });
}\n`,
    );
    const result = await validate('./modules/tool-bad');
    expect(result.passed).toBe(false);
    expect(result.errors.map((c) => c.name).sort()).toEqual([
      'tool_execute_empty_input',
      'tool_input_schema',
    ]);
    expect(result.warnings.map((c) => c.name).sort()).toEqual(['tool_description', 'tool_name']);
    expect(check(result, 'tool_execute_empty_input').message).toMatch(/ReadFile\.execute\(\{\}\) rejected/);
  });

  it('provider: getInfo without display_name and a parseToolCalls that drops calls fail; a throwing getInfo warns', async () => {
    writeModule(
      'provider-bad',
      'provider',
      PROVIDER.replace('INFO', "{ id: 'acme' }").replace('PARSE', '[]'),
    );
    const result = await validate('./modules/provider-bad', { config: { api_key: 'k' } });
    expect(result.errors.map((c) => c.name).sort()).toEqual([
      'provider_get_info',
      'provider_parse_tool_calls_result',
    ]);
    writeModule(
      'provider-throws',
      'provider',
      PROVIDER.replace('() => (INFO)', "() => { throw new Error('not configured'); }").replace(
        'PARSE',
        'response.tool_calls ?? []',
      ),
    );
    const throws = await validate('./modules/provider-throws', { config: { api_key: 'k' } });
    expect(throws.passed).toBe(true);
    expect(throws.warnings.map((c) => c.name)).toEqual(['provider_get_info']);
  });

  it('orchestrator: a working loop passes the behaviour checks; one returning a number fails them', async () => {
    writeModule('loop-mini', 'orchestrator', MINI_LOOP.replace('RETURN', 'text'));
    const good = await validate('./modules/loop-mini');
    expect(failedNames(good)).toEqual([]);
    expect(
      check(good, 'behaviour: a tool call is executed and its result is sent back to the provider').passed,
    ).toBe(true);
    writeModule('loop-bad', 'orchestrator', MINI_LOOP.replace('RETURN', 'text.length'));
    const bad = await validate('./modules/loop-bad');
    expect(bad.passed).toBe(false);
    expect(check(bad, 'behaviour: execute returns a non-empty string').message).toContain(
      'must resolve to a string',
    );
  });

  it('context: a working context passes; one whose clear() does not clear fails the round trip', async () => {
    writeModule('context-mini', 'context', MINI_CONTEXT.replace('CLEAR', 'this.messages = [];'));
    const good = await validate('./modules/context-mini');
    expect(failedNames(good)).toEqual([]);
    for (const name of [
      'context_add_message',
      'context_get_messages_for_request',
      'context_get_messages',
      'context_set_messages',
      'context_clear',
    ]) {
      expect(check(good, name).passed, name).toBe(true);
    }
    writeModule('context-no-clear', 'context', MINI_CONTEXT.replace('CLEAR', ''));
    const bad = await validate('./modules/context-no-clear');
    expect(failedNames(bad)).toEqual(['behaviour: clear empties the context']);
    writeModule(
      'context-partial',
      'context',
      "export function mount(c) { c.mount('context', { async addMessage(m) {} }); }\n",
    );
    const partial = await validate('./modules/context-partial');
    expect(failedNames(partial)).toEqual([
      'context_get_messages_for_request',
      'context_get_messages',
      'context_set_messages',
      'context_clear',
    ]);
  });

  it('hook: handlers that work pass; a handler that throws on {} fails hook_emit', async () => {
    writeModule(
      'hook-good',
      'hook',
      HOOK.replace('BODY', "if (data.tool_name === 'bash') return { action: 'deny', reason: 'no' };"),
    );
    const good = await validate('./modules/hook-good');
    expect(failedNames(good)).toEqual([]);
    expect(check(good, 'protocol_compliance').message).toBe('mounted 1 hook handler(s): tool:pre');
    writeModule(
      'hook-bad',
      'hook',
      HOOK.replace('BODY', "return { action: 'deny', reason: data.tool_input.command };"),
    );
    const bad = await validate('./modules/hook-bad');
    expect(bad.errors.map((c) => c.name)).toEqual(['hook_emit']);
    expect(check(bad, 'hook_emit').message).toContain("hook 'guard' failed on tool:pre");
    writeModule('hook-none', 'hook', 'export function mount(c) {}\n');
    expect(check(await validate('./modules/hook-none'), 'protocol_compliance').message).toContain(
      'No hook handler was mounted',
    );
  });

  it('resolver: a mounted resolver needs a resolve function', async () => {
    writeModule(
      'resolver-ok',
      'resolver',
      "export function mount(c) { c.mount('module-source-resolver', { resolve: (id) => ({ resolve: () => '/x' }) }); }\n",
    );
    expect(failedNames(await validate('./modules/resolver-ok'))).toEqual([]);
    writeModule(
      'resolver-bad',
      'resolver',
      "export function mount(c) { c.mount('module-source-resolver', { find() {} }); }\n",
    );
    expect(failedNames(await validate('./modules/resolver-bad'))).toEqual(['resolver_resolve']);
  });
});
