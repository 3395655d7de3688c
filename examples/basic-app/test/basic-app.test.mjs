// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the plans' ${VAR} syntax is the subject here
/**
 * The basic app as a user runs it: a child process, its stdout lines, its exit
 * code and the event log it leaves in AMPLIFIER_HOME. Needs the workspace's
 * packages built (turbo runs `build` of the dependencies before `test`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { expandVariables } from '../plan-file.mjs';

const appDir = dirname(dirname(fileURLToPath(import.meta.url)));

/** Run main.mjs; resolves with its exit code and output (never rejects on a non-zero exit). */
function runApp(args, env) {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(appDir, 'main.mjs'), ...args],
      { env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => done({ code: error ? (error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('basic app', () => {
  let home;
  let run;
  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'basic-app-test-home-'));
    run = await runApp([], { AMPLIFIER_HOME: home });
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('exits 0 and prints the scripted answer', () => {
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^answer: The workspace has two text files, .* all systems go, and the sentence has 9 words\.$/m,
    );
  });

  it('runs a tool from each tool module (filesystem, bash, web, agentpm) and summarizes each result in one line', () => {
    const lines = run.stdout.split('\n').filter((line) => line.startsWith('tool '));
    assert.deepEqual(
      lines.map((line) => line.split(':')[0]),
      ['tool glob', 'tool read_file', 'tool bash', 'tool web_fetch', 'tool word_count'],
    );
    assert.match(run.stdout, /^tool glob: ok - 2 matches: (notes|todo)\.txt, (notes|todo)\.txt$/m);
    assert.match(run.stdout, /^tool read_file: ok - 2 of 2 lines of notes\.txt: The answer is 42\.$/m);
    // 42 appears only if the shell really evaluated $((6 * 7)).
    assert.match(run.stdout, /^tool bash: ok - exit 0: amplifier-42$/m);
    // HTML from the app's own 127.0.0.1 server, turned into Markdown by tool-web.
    assert.match(
      run.stdout,
      /^tool web_fetch: ok - HTTP 200 text\/html; charset=utf-8: # Status: all systems go$/m,
    );
    // tools/word-count/agent.json, run by tool-agentpm in a child process of its own.
    assert.match(run.stdout, /^tool word_count: ok - 9 words, 43 characters$/m);
  });

  it('writes the event log (hooks-logging) into AMPLIFIER_HOME', () => {
    const match = /^log: (\d+) events \(5 tool:post\) in (.+)$/m.exec(run.stdout);
    assert.ok(match, run.stdout);
    const file = match[2];
    assert.ok(file.startsWith(join(home, 'projects')), file);
    const records = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    assert.equal(records.length, Number(match[1]));
    const tools = records.filter((r) => r.event === 'tool:post').map((r) => r.data.tool_name);
    assert.deepEqual(tools.sort(), ['bash', 'glob', 'read_file', 'web_fetch', 'word_count']);
    assert.ok(records.some((r) => r.event === 'session:start'));
    assert.ok(records.some((r) => r.event === 'session:end'));
  });

  it('leaves a private AMPLIFIER_HOME behind only when the caller gave one', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'basic-app-test-tmp-'));
    try {
      const own = await runApp([], { AMPLIFIER_HOME: '', TMPDIR: scratch });
      assert.equal(own.code, 0, own.stderr);
      assert.match(own.stdout, /^log: \d+ events \(5 tool:post\)/m);
      assert.deepEqual(readdirSync(scratch), []);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('fails with the npm install line when the plan needs a module that is not installed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'basic-app-test-plan-'));
    try {
      const plan = join(dir, 'plan.json');
      writeFileSync(
        plan,
        JSON.stringify({
          session: { orchestrator: 'loop-basic', context: 'context-simple' },
          providers: [{ module: 'provider-mock' }],
          tools: [{ module: 'tool-nowhere' }],
        }),
      );
      // A private AMPLIFIER_HOME and scratch dirs (in TMPDIR) are removed on this path too.
      const scratch = join(dir, 'tmp');
      mkdirSync(scratch);
      const missing = await runApp(['--plan', plan], { AMPLIFIER_HOME: '', TMPDIR: scratch });
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /module tool-nowhere \(tools\) did not load: .*not found/is);
      assert.match(missing.stderr, /npm install @amplifier\/tool-nowhere/);
      assert.deepEqual(readdirSync(scratch), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports an invalid plan with the path of every problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'basic-app-test-plan-'));
    try {
      const plan = join(dir, 'plan.yaml');
      writeFileSync(
        plan,
        'session:\n  orchestrator: loop-basic\ntools:\n  - module: tool-bash\n    config: 3\n',
      );
      const invalid = await runApp(['--plan', plan], { AMPLIFIER_HOME: dir });
      assert.equal(invalid.code, 1);
      assert.match(invalid.stderr, /session\.context is required/);
      assert.match(invalid.stderr, /tools\[0\]\.config must be object/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('plan variables', () => {
  it('expands ${NAME} and ${NAME:default} in strings, deep, and leaves keys alone', () => {
    const plan = {
      providers: [{ module: 'provider-openai', config: { base_url: '${URL:http://127.0.0.1:11434/v1}' } }],
      tools: [{ module: 'tool-web', config: { '${KEY}': 'x-${KEY}-${EMPTY:}', n: 3 } }],
    };
    assert.deepEqual(expandVariables(plan, { KEY: 'k' }), {
      providers: [{ module: 'provider-openai', config: { base_url: 'http://127.0.0.1:11434/v1' } }],
      tools: [{ module: 'tool-web', config: { '${KEY}': 'x-k-', n: 3 } }],
    });
    assert.equal(expandVariables('${URL:fallback}', { URL: '' }), '', 'an empty value counts as set');
  });

  it('lists every variable that has neither a value nor a default, with its path', () => {
    assert.throws(
      () => expandVariables({ a: ['${ONE}'], b: { c: '${TWO} ${THREE:ok}' } }, {}),
      /not set and have no default: ONE \(at a\[0\]\), TWO \(at b\.c\)\./,
    );
  });
});

describe('basic app with a plan that has no event log', () => {
  it('examples/plans/minimal.yaml: exits 0 with its answer and says there is no log', async () => {
    const home = mkdtempSync(join(tmpdir(), 'basic-app-test-home-'));
    try {
      const result = await runApp(['--plan', join(appDir, '..', 'plans', 'minimal.yaml')], {
        AMPLIFIER_HOME: home,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^answer: /m);
      assert.match(result.stdout, /^log: none \(the plan mounts no hooks-logging\)$/m);
      assert.doesNotMatch(result.stderr, /no event log/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
