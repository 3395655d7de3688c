/**
 * Finding and loading the package a plan names, with real packages in a
 * temporary project's node_modules: found from the session loader's baseDir
 * (the project) first, its ESM entry imported, the factory called with the
 * options (api_key and base_url folded in), and every way it can go wrong
 * told clearly: no package or model, not installed, no or several factories,
 * a model of spec v2, an entry pointing outside the package, no key.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Coordinator, type Logger, ModuleLoader } from '@amplifier/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findModelPackage, loadAiSdkProvider, mount } from './index.js';

let project: string;

/** A package in the project's node_modules: package.json and files. */
function install(name: string, pkg: Record<string, unknown>, files: Record<string, string>): void {
  const dir = path.join(project, 'node_modules', ...name.split('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...pkg }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

/** ESM source of a provider package whose factory records its options and makes models of `version`. */
const providerSource = (factory: string, version: string, extra = '') => `
export const made = [];
export function ${factory}(options) {
  const provider = (id) => provider.languageModel(id);
  provider.languageModel = (id) => {
    made.push({ id, options });
    return {
      specificationVersion: '${version}', provider: 'fake.chat', modelId: id,
      async doGenerate() { return { content: [{ type: 'text', text: 'from ' + id + ' ' + JSON.stringify(options) }],
        usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }, finishReason: { unified: 'stop' } }; },
      async doStream() { throw new Error('not scripted'); },
    };
  };
  return provider;
}
${extra}`;

beforeAll(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'ai-sdk-load-'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  install(
    '@fake/ai-provider',
    {
      type: 'module',
      exports: { '.': { types: './x.d.ts', import: './esm/index.js', require: './cjs/index.cjs' } },
    },
    {
      'esm/index.js': providerSource('createFake', 'v3'),
      'cjs/index.cjs': 'throw new Error("the CommonJS build was loaded");',
    },
  );
  install(
    'old-ai-provider',
    { type: 'module', main: 'index.js' },
    { 'index.js': providerSource('createOld', 'v2') },
  );
  install(
    'two-factories',
    { type: 'module', main: 'index.js' },
    { 'index.js': `${providerSource('createOne', 'v3')}\nexport const createTwo = createOne;` },
  );
  install('no-factory', { type: 'module', main: 'index.js' }, { 'index.js': 'export const nothing = 1;' });
  install('escaping', { type: 'module', exports: '../../evil.js' }, {});
  writeFileSync(path.join(project, 'evil.js'), 'globalThis.__aiSdkEvil = true;');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

const roots = () => ({ baseDir: project });
const REQUEST = { messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('loading the named package', () => {
  it("imports the package's ESM entry from the project and calls its only create* with the options, api_key and base_url folded in", async () => {
    const bridge = await loadAiSdkProvider(
      {
        package: '@fake/ai-provider',
        default_model: 'fake-large',
        options: { compatibility: 'strict' },
        api_key: 'k-1',
        base_url: 'http://127.0.0.1:9/v1/',
        use_streaming: false,
      },
      roots(),
    );
    const response = await bridge.complete(REQUEST);
    expect(response.content[0]).toEqual({
      type: 'text',
      text: 'from fake-large {"compatibility":"strict","apiKey":"k-1","baseURL":"http://127.0.0.1:9/v1"}',
    });
  });

  it("the package's own option names win over api_key and base_url", async () => {
    const bridge = await loadAiSdkProvider(
      {
        package: '@fake/ai-provider',
        default_model: 'm',
        options: { apiKey: 'own', baseURL: 'http://127.0.0.1:8' },
        api_key: 'k',
        base_url: 'http://127.0.0.1:9',
        use_streaming: false,
      },
      roots(),
    );
    const text = (await bridge.complete(REQUEST)).content[0];
    expect(text).toMatchObject({ text: 'from m {"apiKey":"own","baseURL":"http://127.0.0.1:8"}' });
  });

  it('names the model and package that are missing', async () => {
    await expect(loadAiSdkProvider({ default_model: 'm' }, roots())).rejects.toThrow(/package is required/);
    await expect(loadAiSdkProvider({ package: '@fake/ai-provider' }, roots())).rejects.toThrow(
      /default_model is required/,
    );
  });

  it('a package that is not installed: where it looked and how to install it', async () => {
    await expect(loadAiSdkProvider({ package: '@ai-sdk/nowhere', model: 'm' }, roots())).rejects.toThrow(
      /'@ai-sdk\/nowhere' is not installed in the project.*npm install @ai-sdk\/nowhere/,
    );
  });

  it('refuses a model of spec v2 at load time, not at the first call', async () => {
    await expect(loadAiSdkProvider({ package: 'old-ai-provider', model: 'm' }, roots())).rejects.toThrow(
      /old-ai-provider\.createOld\(\)\('m'\) implements the AI SDK language model spec "v2"/,
    );
  });

  it('several factories: asks for config factory; a named one is used; an unknown one lists the real ones', async () => {
    await expect(loadAiSdkProvider({ package: 'two-factories', model: 'm' }, roots())).rejects.toThrow(
      /several factories \(createOne, createTwo\)/,
    );
    const bridge = await loadAiSdkProvider(
      { package: 'two-factories', factory: 'createTwo', model: 'm', use_streaming: false },
      roots(),
    );
    expect((await bridge.complete(REQUEST)).content[0]).toMatchObject({ text: 'from m {}' });
    await expect(
      loadAiSdkProvider({ package: 'two-factories', factory: 'createThree', model: 'm' }, roots()),
    ).rejects.toThrow(/no function export 'createThree' \(its factories: createOne, createTwo\)/);
    await expect(loadAiSdkProvider({ package: 'no-factory', model: 'm' }, roots())).rejects.toThrow(
      /exports no create\* function/,
    );
  });

  it('hostile names and entries: a path is no package name; an entry outside the package is refused unrun', async () => {
    for (const name of ['../evil', '/etc/passwd', './x', 'file:///tmp/x', '@scope/../x', 'UPPER']) {
      await expect(loadAiSdkProvider({ package: name, model: 'm' }, roots())).rejects.toThrow(/package/);
    }
    await expect(loadAiSdkProvider({ package: 'escaping', model: 'm' }, roots())).rejects.toThrow(
      /points outside it/,
    );
    expect((globalThis as { __aiSdkEvil?: boolean }).__aiSdkEvil).toBeUndefined();
  });

  it('looks in the project first, then the extra roots', () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'ai-sdk-root-'));
    try {
      expect(findModelPackage('@fake/ai-provider', { baseDir: other, extraRoots: [project] })).toContain(
        project,
      );
      expect(() => findModelPackage('@fake/ai-provider', { baseDir: other })).toThrow(/from .*ai-sdk-root-/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('mount', () => {
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) };

  it("resolves the package from the session loader's baseDir and mounts under config name", async () => {
    const coordinator = new Coordinator({ loader: new ModuleLoader({ baseDir: project }), logger });
    const cleanup = await mount(coordinator, {
      package: '@fake/ai-provider',
      model: 'fake-small',
      name: 'fake',
      use_streaming: false,
    });
    const provider = coordinator.get('providers', 'fake');
    expect(provider).toBeDefined();
    expect((await provider!.complete(REQUEST)).content[0]).toMatchObject({ text: 'from fake-small {}' });
    await cleanup?.();
  });

  it('does not mount without the key api_key_env names, and says so', async () => {
    const coordinator = new Coordinator({ loader: new ModuleLoader({ baseDir: project }), logger });
    const name = 'AI_SDK_TEST_KEY_THAT_IS_NOT_SET';
    delete process.env[name];
    const cleanup = await mount(coordinator, { package: '@fake/ai-provider', model: 'm', api_key_env: name });
    expect(cleanup).toBeUndefined();
    expect(coordinator.get('providers').size).toBe(0);
    expect(warnings.at(-1)).toBe(
      `provider-ai-sdk: not mounted: no API key. Set ${name}, or the provider's api_key config.`,
    );
  });
});
