/**
 * The example mount plans in examples/plans: each one is a valid plan for
 * core once its variables are expanded, and the offline ones run a turn
 * through AmplifierSession with the modules this app has installed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AmplifierSession, validateMountPlan } from '@amplifier/core';
import { loadPlan } from '../plan-file.mjs';

const appDir = dirname(dirname(fileURLToPath(import.meta.url)));
const plansDir = join(appDir, '..', 'plans');
const planFiles = readdirSync(plansDir).filter((name) => name.endsWith('.yaml'));

describe('example plans', () => {
  let home;
  let workDir;
  let savedHome;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'example-plans-home-'));
    workDir = mkdtempSync(join(tmpdir(), 'example-plans-work-'));
    writeFileSync(join(workDir, 'README.md'), '# A project\n');
    savedHome = process.env.AMPLIFIER_HOME;
    process.env.AMPLIFIER_HOME = home; // hooks-logging writes here, not in ~/.amplifier
  });
  after(() => {
    if (savedHome === undefined) delete process.env.AMPLIFIER_HOME;
    else process.env.AMPLIFIER_HOME = savedHome;
    rmSync(home, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  });

  it('has the three documented plans', () => {
    assert.deepEqual(planFiles.sort(), ['development.yaml', 'minimal.yaml', 'openai-local.yaml']);
  });

  for (const name of planFiles) {
    it(`${name} is a valid mount plan with no warnings`, async () => {
      const plan = await loadPlan(join(plansDir, name), {});
      const { errors, warnings } = validateMountPlan(plan);
      assert.deepEqual(errors, []);
      assert.deepEqual(warnings, []);
    });
  }

  it('openai-local.yaml points at a local server unless OPENAI_BASE_URL says otherwise', async () => {
    const local = await loadPlan(join(plansDir, 'openai-local.yaml'), {});
    assert.equal(local.providers[0].config.base_url, 'http://127.0.0.1:11434/v1');
    assert.equal(local.providers[0].config.default_model, 'llama3.2');
    const hosted = await loadPlan(join(plansDir, 'openai-local.yaml'), {
      OPENAI_BASE_URL: 'https://api.example.com/v1',
      OPENAI_MODEL: 'm-1',
    });
    assert.equal(hosted.providers[0].config.base_url, 'https://api.example.com/v1');
    assert.equal(hosted.providers[0].config.default_model, 'm-1');
  });

  it('minimal.yaml runs a turn offline with the mock provider', async () => {
    const plan = await loadPlan(join(plansDir, 'minimal.yaml'), {});
    const session = await AmplifierSession.create(plan, { baseDir: appDir, workingDir: workDir });
    try {
      assert.deepEqual(session.failures, []);
      const answer = await session.execute('Hello', { signal: AbortSignal.timeout(60_000) });
      assert.equal(answer, 'This is a mock response from provider-mock.');
    } finally {
      await session.cleanup();
    }
  });

  it('development.yaml mounts every tool module and the log, and its scripted turn uses glob and bash', async () => {
    const plan = await loadPlan(join(plansDir, 'development.yaml'), {});
    const session = await AmplifierSession.create(plan, { baseDir: appDir, workingDir: workDir });
    const results = [];
    try {
      assert.deepEqual(session.failures, []);
      const tools = [...session.coordinator.get('tools').keys()];
      for (const tool of [
        'read_file',
        'write_file',
        'edit_file',
        'glob',
        'grep',
        'bash',
        'web_fetch',
        'web_search',
      ]) {
        assert.ok(tools.includes(tool), `${tool} is mounted (have: ${tools.join(', ')})`);
      }
      session.coordinator.hooks.register('tool:post', (_event, data) => {
        results.push({ tool: data.tool_name, success: data.result.success, output: data.result.output });
      });
      const answer = await session.execute('Look around', { signal: AbortSignal.timeout(60_000) });
      assert.match(answer, /top of the project/);
    } finally {
      await session.cleanup();
    }
    results.sort((a, b) => a.tool.localeCompare(b.tool));
    assert.deepEqual(
      results.map((r) => [r.tool, r.success]),
      [
        ['bash', true],
        ['glob', true],
      ],
    );
    assert.match(results[0].output.stdout, /README\.md/);
    assert.deepEqual(
      results[1].output.matches.map((m) => m.path.split('/').pop()),
      ['README.md'],
    );
    assert.ok(readdirSync(join(home, 'projects')).length > 0, 'hooks-logging wrote under AMPLIFIER_HOME');
  });
});
