/**
 * The official AgentPM example tools, as their manifests describe them
 * (`__fixtures__/recorded/agentpm-examples/`, unchanged upstream files), with small
 * scripts of our own in the same layouts: `files` directory entries
 * (`"dist/"`, `"summarize_text/"`), the `{ ok, ... }` reply convention,
 * `format: uri`, and the caller's variables passed by name to one tool.
 * Real child processes throughout.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool, ToolResult } from '@amplifier/core';
import { createTestCoordinator, skipUnless } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from './__fixtures__/tools.js';
import { filesMatcher } from './files.js';
import { findInterpreter, lintManifest, mount, PROBLEMS_CAPABILITY } from './index.js';
import type { LoadProblem } from './loader.js';

const examples = fileURLToPath(new URL('./__fixtures__/recorded/agentpm-examples/', import.meta.url));
const noPython3 = skipUnless(spawnSync('python3', ['--version']).status === 0, 'python3 on PATH');

/** Stdin as JSON, then `reply(input)` printed; a thrown error with a code is a value-level failure (exit 0), any other exits 1. */
const NODE_MAIN = `
const { handle } = require('./lib/handle.js');
let raw = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { raw += c; });
process.stdin.on('end', () => {
  const input = raw.trim() ? JSON.parse(raw) : {};
  try {
    process.stdout.write(JSON.stringify({ ok: true, ...handle(input, process.env) }));
  } catch (e) {
    process.stdout.write(JSON.stringify({ ok: false, error: { code: e.code || 'UNEXPECTED', message: String(e.message) } }));
    process.exitCode = e.code ? 0 : 1;
  }
});
`;

/** translate-text's logic, without the network: needs OPENAI_API_KEY, tells which variables it got. */
const TRANSLATE = `
exports.handle = ({ text, target_language }, env) => {
  if (!env.OPENAI_API_KEY) {
    const e = new Error('OPENAI_API_KEY is not set'); e.code = 'MISSING_API_KEY'; throw e;
  }
  if (target_language === 'klingon') throw new Error('the model refused');
  const names = Object.keys(env).filter((n) => n.endsWith('_KEY') || n.endsWith('_TOKEN')).sort();
  return { translated: '[' + target_language + '] ' + text + ' (key ' + env.OPENAI_API_KEY.slice(0, 4) + '; ' + names.join(',') + ')' };
};
`;

/** wikipedia-scrape without the network: echoes the URL, and an image URL the input may spoil. */
const WIKIPEDIA = `
exports.handle = ({ url }, env) => ({
  title: url.split('/').pop(),
  text: Object.keys(env).filter((n) => n.endsWith('_KEY')).join(','),
  images: [url.includes('broken') ? 'not a uri' : url + '/image.png'],
});
`;

const SUMMARIZE_MAIN = `
import json, sys
from core import summarize

raw = sys.stdin.read()
data = json.loads(raw) if raw.strip() else {}
text = data.get("text", "")
if not text.strip():
    print(json.dumps({"ok": False, "error": {"code": "INPUT_INVALID", "message": "text is empty"}}))
else:
    print(json.dumps({"ok": True, "summary": summarize(text, data.get("max_words", 200))}))
`;

const SUMMARIZE_CORE = `
def summarize(text, max_words):
    return " ".join(text.split()[:max_words])
`;

let root: string;
let remove: () => void;
let cleanups: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  ({ dir: root, remove } = tempDir('tool-agentpm-examples-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
  vi.unstubAllEnvs();
  remove();
});

/** `<root>/<name>`: the example's unchanged agent.json and the given files. */
function exampleTool(name: string, files: Record<string, string>): string {
  const folder = path.join(root, name);
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(path.join(examples, name, 'agent.json'), path.join(folder, 'agent.json'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    fs.writeFileSync(path.join(folder, file), text);
  }
  return folder;
}

const translateText = (): string =>
  exampleTool('translate-text', { 'dist/index.js': NODE_MAIN, 'dist/lib/handle.js': TRANSLATE });
const wikipediaScrape = (): string =>
  exampleTool('wikipedia-scrape', { 'dist/index.js': NODE_MAIN, 'dist/lib/handle.js': WIKIPEDIA });

async function mounted(tools: unknown[], config: Record<string, unknown> = {}) {
  const coordinator = createTestCoordinator({ bare: true });
  cleanups.push(await mount(coordinator, { tools, ...config }));
  const problems = coordinator.getCapability<LoadProblem[]>(PROBLEMS_CAPABILITY) ?? [];
  const get = (name: string): Tool => {
    const tool = coordinator.get('tools', name);
    if (tool === undefined) throw new Error(`tool ${name} not mounted: ${JSON.stringify(problems)}`);
    return tool;
  };
  return { get, problems };
}

function errorOf(result: ToolResult): { message: string; type?: string; [k: string]: unknown } {
  expect(result.success).toBe(false);
  expect(result.output).toBe(result.error!.message);
  return result.error!;
}

describe('files: directory entries as AgentPM packages them', () => {
  it('"dist/" includes every file below dist (nested too); a file entry is that file; others are globs', () => {
    const folder = translateText();
    fs.writeFileSync(path.join(folder, 'README.md'), '# t\n');
    const includes = filesMatcher(folder, ['dist/', 'README.md', '*.txt']);
    expect(includes('dist/index.js')).toBe(true);
    expect(includes('dist/lib/handle.js')).toBe(true);
    expect(includes('README.md')).toBe(true);
    expect(includes('notes.txt')).toBe(true);
    expect(includes('distant.js')).toBe(false);
    expect(includes('src/index.ts')).toBe(false);
    // Without the trailing slash, an existing directory is still a directory entry.
    expect(filesMatcher(folder, ['dist'])('dist/lib/handle.js')).toBe(true);
    expect(filesMatcher(folder, ['./dist/'])('dist/index.js')).toBe(true);
  });

  it('the real manifests lint clean in their layouts; a missing directory entry is a warning', () => {
    expect(lintManifest(translateText())).toEqual([]);
    expect(lintManifest(wikipediaScrape())).toEqual([]);
    const bare = exampleTool('summarize-text', { 'summarize_text/__main__.py': SUMMARIZE_MAIN });
    expect(lintManifest(bare)).toEqual([]);
    fs.rmSync(path.join(bare, 'summarize_text'), { recursive: true });
    expect(lintManifest(bare)).toEqual([
      {
        path: 'entrypoint.args[1]',
        message: '"summarize_text/__main__.py" does not exist in the tool folder',
        severity: 'error',
      },
      {
        path: 'files[0]',
        message: 'the directory "summarize_text/" does not exist in the tool folder',
        severity: 'warning',
      },
    ]);
  });
});

describe('translate-text (node, "dist/"): the reply convention and the caller variables', () => {
  it("loads, and { ok: false, error } is a failed result with the tool's message and code", async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-host-secret');
    const { get, problems } = await mounted([translateText()]);
    expect(problems).toEqual([]);
    const error = errorOf(await get('translate_text').execute({ text: 'hello', target_language: 'fr' }));
    // Not declared by the manifest and not listed: the host's key is not passed.
    expect(error).toMatchObject({
      type: 'tool_error',
      code: 'MISSING_API_KEY',
      message: 'translate_text failed (MISSING_API_KEY): OPENAI_API_KEY is not set',
      exit_code: 0,
    });
  });

  it("a tool's own pass_env gives it the caller's named variables, and nothing else", async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-host-secret');
    vi.stubEnv('GITHUB_TOKEN', 'ghp-not-for-tools');
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-not-for-tools');
    const { get, problems } = await mounted([
      { source: translateText(), pass_env: ['OPENAI_API_KEY'] },
      wikipediaScrape(),
    ]);
    expect(problems).toEqual([]);
    expect(await get('translate_text').execute({ text: 'hello', target_language: 'fr' })).toEqual({
      success: true,
      // `ok: true` is dropped: the rest of the reply is the output.
      output: { translated: '[fr] hello (key sk-h; OPENAI_API_KEY)' },
    });
    // The other tool of the same mount does not get it.
    const other = await get('wikipedia_scrape').execute({ url: 'https://en.wikipedia.org/wiki/Ada' });
    expect(other).toMatchObject({ success: true, output: { title: 'Ada', text: '' } });
  });

  it("the config's env value wins over the host's; an unset listed name is reported and left out", async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-host-secret');
    const set = await mounted([{ source: translateText(), pass_env: ['OPENAI_API_KEY'] }], {
      env: { OPENAI_API_KEY: 'cfg-key' },
    });
    expect(await set.get('translate_text').execute({ text: 'a', target_language: 'de' })).toMatchObject({
      output: { translated: '[de] a (key cfg-; OPENAI_API_KEY)' },
    });

    vi.stubEnv('OPENAI_API_KEY', undefined);
    const unset = await mounted([
      { source: path.join(root, 'translate-text'), pass_env: ['OPENAI_API_KEY'] },
    ]);
    expect(unset.problems).toEqual([
      {
        source: path.join(root, 'translate-text'),
        folder: path.join(root, 'translate-text'),
        path: '',
        message:
          "OPENAI_API_KEY is listed in this tool's pass_env but has no value (not in the config env, not set on the host); the tool runs without it",
        severity: 'warning',
      },
    ]);
    expect(
      errorOf(await unset.get('translate_text').execute({ text: 'a', target_language: 'de' })),
    ).toMatchObject({
      code: 'MISSING_API_KEY',
    });
  });

  it('an { ok: false } reply with exit code 1 still says what the tool said', async () => {
    const { get } = await mounted([{ source: translateText(), pass_env: ['OPENAI_API_KEY'] }], {
      env: { OPENAI_API_KEY: 'k' },
    });
    const error = errorOf(await get('translate_text').execute({ text: 'a', target_language: 'klingon' }));
    expect(error).toMatchObject({
      type: 'tool_error',
      code: 'UNEXPECTED',
      message: 'translate_text failed (UNEXPECTED): the model refused (it exited with code 1)',
      exit_code: 1,
    });
  });

  it('rejects bad config for a tools entry with the key named', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    await expect(mount(coordinator, { tools: [{ pass_env: ['OPENAI_API_KEY'] }] })).rejects.toThrow(
      /tools\[0\]\.source is required/,
    );
    await expect(mount(coordinator, { tools: [{ source: 'x', pass_env: ['NOT A NAME'] }] })).rejects.toThrow(
      /tools\[0\]\.pass_env\[0\]/,
    );
  });
});

describe('wikipedia-scrape (node): format "uri" is checked, in and out', () => {
  it('refuses an input that is not a URI without running the tool, and a reply whose image is not one', async () => {
    const { get } = await mounted([wikipediaScrape()]);
    const tool = get('wikipedia_scrape');
    expect(errorOf(await tool.execute({ url: 'not a url' }))).toMatchObject({
      type: 'invalid_input',
      message: 'invalid input for wikipedia_scrape; the tool was not run:\n  - url must match format "uri"',
    });
    expect(await tool.execute({ url: 'https://en.wikipedia.org/wiki/Ada' })).toEqual({
      success: true,
      output: {
        title: 'Ada',
        text: '',
        images: ['https://en.wikipedia.org/wiki/Ada/image.png'],
      },
    });
    const spoiled = errorOf(await tool.execute({ url: 'https://en.wikipedia.org/wiki/broken' }));
    expect(spoiled.type).toBe('invalid_output');
    expect(spoiled.message).toContain('images[0] must match format "uri"');
  });
});

describe('interpreters: python and python3 (node and nodejs) are one runtime, as for AgentPM', () => {
  it('runs python3 for "python" when only python3 is on PATH, and says so', () => {
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'python3'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findInterpreter('python', bin)).toEqual({ command: path.join(bin, 'python3'), alias: true });
    expect(findInterpreter('python3', bin)).toEqual({ command: path.join(bin, 'python3'), alias: false });
    expect(findInterpreter('node', bin)).toBeUndefined();
  });
});

describe.skipIf(noPython3)('summarize-text (python, "summarize_text/"; needs python3 on PATH)', () => {
  it('loads from its package directory (python or its alias python3) and follows the reply convention', async () => {
    const folder = exampleTool('summarize-text', {
      'summarize_text/__init__.py': '',
      'summarize_text/__main__.py': SUMMARIZE_MAIN,
      'summarize_text/core.py': SUMMARIZE_CORE,
    });
    const { get, problems } = await mounted([folder]);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const tool = get('summarize_text');
    const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
    expect(await tool.execute({ text: words, max_words: 50 })).toEqual({
      success: true,
      output: { summary: words.split(' ').slice(0, 50).join(' ') },
    });
    expect(errorOf(await tool.execute({ text: '   ' }))).toMatchObject({
      type: 'tool_error',
      code: 'INPUT_INVALID',
      message: 'summarize_text failed (INPUT_INVALID): text is empty',
    });
    expect(errorOf(await tool.execute({ text: 'x', max_words: 5 }))).toMatchObject({ type: 'invalid_input' });
  });
});
