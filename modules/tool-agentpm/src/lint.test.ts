/**
 * Manifest checks: the shipped schema, every manifest error (one test each),
 * lint warnings, and the linter output format.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { compileSchema } from '@amplifier/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifest, NODE_TOOL, PYTHON_TOOL, tempDir, writeTool } from './__fixtures__/tools.js';
import { checkManifest, formatManifestProblems, lintManifest } from './lint.js';
import { AGENT_MANIFEST_SCHEMA, interpreterFamily, type ManifestProblem, modelToolName } from './manifest.js';

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ dir: root, remove } = tempDir('tool-agentpm-manifest-'));
});
afterEach(() => remove());

/** Write a tool whose manifest is the default one changed by `change`, and lint it. */
function lintWith(change: (m: Record<string, unknown>) => void, name = 'probe'): ManifestProblem[] {
  const data = manifest(name);
  change(data);
  return lintManifest(writeTool(root, name, 'process.stdout.write("{}")', data));
}

const errors = (problems: ManifestProblem[]) =>
  problems.filter((p) => p.severity === 'error').map((p) => ({ path: p.path, message: p.message }));

describe('valid manifests', () => {
  it('the checked-in Node and Python 3 examples have no problems at all', () => {
    expect(lintManifest(NODE_TOOL)).toEqual([]);
    expect(lintManifest(PYTHON_TOOL)).toEqual([]);
    const check = checkManifest(PYTHON_TOOL);
    expect(check.manifest?.name).toBe('word-freq');
    expect(check.script).toBe(path.join(fs.realpathSync(PYTHON_TOOL), 'word_freq.py'));
    expect(check.cwd).toBe(fs.realpathSync(PYTHON_TOOL));
  });

  it('the shipped schema is a valid draft 2020-12 schema and is exported as a package file', () => {
    expect(
      compileSchema({ $ref: 'https://json-schema.org/draft/2020-12/schema' })(AGENT_MANIFEST_SCHEMA),
    ).toEqual([]);
    const require = createRequire(import.meta.url);
    const resolved = require.resolve('@amplifier/tool-agentpm/schemas/agent-manifest.json');
    expect(JSON.parse(fs.readFileSync(resolved, 'utf8'))).toEqual(AGENT_MANIFEST_SCHEMA);
  });

  it('names map hyphens to underscores for the model; interpreters are told by file name', () => {
    expect(modelToolName('text-stats')).toBe('text_stats');
    expect(modelToolName('a1-b2-c3')).toBe('a1_b2_c3');
    expect(interpreterFamily('/usr/local/bin/node')).toBe('node');
    expect(interpreterFamily('nodejs')).toBe('node');
    expect(interpreterFamily('/opt/py/bin/python3.12')).toBe('python');
    expect(interpreterFamily('/opt/bin/deno')).toBeUndefined();
  });
});

describe('manifest errors (one each)', () => {
  it('kind must be "tool"', () => {
    expect(errors(lintWith((m) => (m.kind = 'agent')))).toEqual([
      { path: 'kind', message: 'must be equal to constant' },
    ]);
  });

  it('name must match ^[a-z][a-z0-9-]{0,63}$', () => {
    for (const bad of ['Text-Stats', '1tool', 'a_b', 'x'.repeat(65)]) {
      expect(errors(lintWith((m) => (m.name = bad)))[0]).toMatchObject({ path: 'name' });
    }
  });

  it('version must be semver (checked with the semver package)', () => {
    expect(errors(lintWith((m) => (m.version = '1.0')))).toEqual([
      { path: 'version', message: '"1.0" is not a semantic version (like 1.2.3)' },
    ]);
  });

  it('description is required and must not be empty', () => {
    expect(errors(lintWith((m) => delete m.description))).toEqual([
      { path: 'description', message: 'is required' },
    ]);
    expect(errors(lintWith((m) => (m.description = '')))).toEqual([
      { path: 'description', message: 'must not be empty' },
    ]);
  });

  it('unknown keys are rejected, at the top and inside entrypoint', () => {
    const problems = errors(
      lintWith((m) => {
        m.author = 'me';
        (m.entrypoint as Record<string, unknown>).shell = true;
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'author', message: 'is not allowed (unknown key)' },
        { path: 'entrypoint.shell', message: 'is not allowed (unknown key)' },
      ]),
    );
  });

  it('entrypoint.command must be node, nodejs, python, python3 or an absolute path', () => {
    expect(errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).command = 'bash')))).toEqual([
      {
        path: 'entrypoint.command',
        message: '"bash" must be one of node, nodejs, python, python3 or an absolute path',
      },
    ]);
    expect(
      errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).command = process.execPath))),
    ).toEqual([]);
  });

  it('runtime.type must match the interpreter of entrypoint.command', () => {
    expect(errors(lintWith((m) => (m.runtime = { type: 'python' })))).toEqual([
      { path: 'runtime.type', message: 'is "python" but entrypoint.command "node" runs node' },
    ]);
    const unknown = lintWith((m) => {
      m.runtime = { type: 'node' };
      (m.entrypoint as Record<string, unknown>).command = '/opt/bin/deno';
    });
    expect(errors(unknown)[0]).toMatchObject({ path: 'entrypoint.command' });
    expect(errors(unknown)[0]!.message).toMatch(/cannot tell which interpreter "\/opt\/bin\/deno" is/);
  });

  it('runtime.type must be node or python; runtime.version must be a semver range', () => {
    expect(errors(lintWith((m) => (m.runtime = { type: 'ruby' })))[0]).toMatchObject({
      path: 'runtime.type',
    });
    expect(errors(lintWith((m) => (m.runtime = { type: 'node', version: 'newest' })))).toEqual([
      { path: 'runtime.version', message: '"newest" is not a semver range (like >=20 or ^3.10)' },
    ]);
  });

  it("a script that files leaves out is a warning: AgentPM's packager adds the entrypoint anyway", () => {
    const problems = lintWith((m) => (m.files = ['lib/**']));
    expect(errors(problems)).toEqual([]);
    expect(problems).toContainEqual({
      path: 'entrypoint.args[0]',
      message:
        'the script "main.mjs" is not included by files (["lib/**"]); AgentPM\'s packager adds it anyway, list it to make that explicit',
      severity: 'warning',
    });
  });

  it('entrypoint.args must point at a file that exists', () => {
    expect(
      errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).args = ['--trace', 'gone.mjs']))),
    ).toEqual([{ path: 'entrypoint.args[1]', message: '"gone.mjs" does not exist in the tool folder' }]);
  });

  it('entrypoint.args must name a script at all (not only options)', () => {
    expect(errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).args = ['--version'])))).toEqual(
      [
        {
          path: 'entrypoint.args',
          message: 'must name the script file (the first argument not starting with "-")',
        },
      ],
    );
  });

  it('entrypoint.args must not leave the tool folder (.. or a symlink out)', () => {
    fs.writeFileSync(path.join(root, 'outside.mjs'), '');
    const dotdot = errors(
      lintWith((m) => ((m.entrypoint as Record<string, unknown>).args = ['../outside.mjs'])),
    );
    expect(dotdot[0]).toMatchObject({ path: 'entrypoint.args[0]' });
    expect(dotdot[0]!.message).toMatch(/^"\.\.\/outside\.mjs" leaves the tool folder/);

    const folder = writeTool(
      root,
      'linked',
      '',
      manifest('linked', { entrypoint: { command: 'node', args: ['link.mjs'] } }),
    );
    fs.symlinkSync(path.join(root, 'outside.mjs'), path.join(folder, 'link.mjs'));
    expect(errors(lintManifest(folder))[0]!.message).toMatch(/^"link\.mjs" leaves the tool folder/);
  });

  it('entrypoint.cwd must stay inside the tool folder (and exist)', () => {
    const up = errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).cwd = '..')));
    expect(up[0]).toMatchObject({ path: 'entrypoint.cwd' });
    expect(up[0]!.message).toMatch(/^"\.\." leaves the tool folder/);
    expect(errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).cwd = '/tmp')))).toEqual([
      { path: 'entrypoint.cwd', message: '"/tmp" must be a path relative to the tool folder' },
    ]);
    expect(errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).cwd = 'bin')))).toEqual([
      { path: 'entrypoint.cwd', message: '"bin" does not exist in the tool folder' },
    ]);
  });

  it('entrypoint.cwd moves where the script is looked for', () => {
    const folder = path.join(root, 'nested');
    fs.mkdirSync(path.join(folder, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'bin', 'run.mjs'), '');
    const data = manifest('nested', {
      entrypoint: { command: 'node', args: ['run.mjs'], cwd: 'bin' },
      files: ['bin/*'],
    });
    fs.writeFileSync(path.join(folder, 'agent.json'), JSON.stringify(data));
    const check = checkManifest(folder);
    expect(check.problems).toEqual([]);
    expect(check.cwd).toBe(path.join(folder, 'bin'));
    expect(check.script).toBe(path.join(folder, 'bin', 'run.mjs'));
  });

  it('entrypoint.timeout_ms must be a positive integer', () => {
    expect(errors(lintWith((m) => ((m.entrypoint as Record<string, unknown>).timeout_ms = 0)))).toEqual([
      { path: 'entrypoint.timeout_ms', message: 'must be >= 1' },
    ]);
  });

  it('inputs must be a valid draft 2020-12 schema (meta-schema errors point inside it)', () => {
    const problems = errors(
      lintWith(
        (m) => (m.inputs = { type: 'object', properties: { n: { type: 'integr', minimum: 'zero' } } }),
      ),
    );
    expect(problems.map((p) => p.path)).toEqual(
      expect.arrayContaining(['inputs.properties.n.type', 'inputs.properties.n.minimum']),
    );
  });

  it('outputs must be a valid draft 2020-12 schema that compiles', () => {
    expect(errors(lintWith((m) => (m.outputs = { required: 'count' })))).toEqual([
      { path: 'outputs.required', message: 'must be array' },
    ]);
    const unresolved = errors(lintWith((m) => (m.outputs = { $ref: '#/$defs/missing' })));
    expect(unresolved[0]).toMatchObject({ path: 'outputs' });
    expect(unresolved[0]!.message).toMatch(/^does not compile: .*missing/);
  });

  it('inputs and outputs must not declare another draft', () => {
    expect(
      errors(lintWith((m) => (m.outputs = { $schema: 'http://json-schema.org/draft-07/schema#' }))),
    ).toEqual([
      {
        path: 'outputs.$schema',
        message:
          'must be "https://json-schema.org/draft/2020-12/schema" when given (AgentPM schemas are draft 2020-12)',
      },
    ]);
  });

  it('inputs must describe an object', () => {
    expect(errors(lintWith((m) => (m.inputs = { type: 'string' })))).toEqual([
      { path: 'inputs.type', message: 'must be "object" (a tool is always called with an object)' },
    ]);
  });

  it('files must be a non-empty list of non-empty globs inside the folder', () => {
    expect(errors(lintWith((m) => (m.files = []))).map((p) => p.path)).toContain('files');
    expect(errors(lintWith((m) => (m.files = ['*.mjs', '']))).map((p) => p.path)).toEqual(['files[1]']);
    expect(errors(lintWith((m) => (m.files = ['*.mjs', '../shared/**'])))).toEqual([
      { path: 'files[1]', message: '"../shared/**" must be relative to the tool folder and stay inside it' },
    ]);
    expect(errors(lintWith((m) => (m.files = ['*.mjs', '/etc/*'])))[0]).toMatchObject({ path: 'files[1]' });
  });

  it('environment.vars names must be UPPER_SNAKE_CASE with only required, description, default', () => {
    const lower = errors(lintWith((m) => (m.environment = { vars: { api_key: { required: true } } })));
    expect(lower.map((p) => p.path)).toContain('environment.vars');
    expect(lower.some((p) => p.message.includes('must match pattern'))).toBe(true);
    expect(
      errors(lintWith((m) => (m.environment = { vars: { API_KEY: { required: true, secret: true } } }))),
    ).toEqual([{ path: 'environment.vars.API_KEY.secret', message: 'is not allowed (unknown key)' }]);
    expect(errors(lintWith((m) => (m.environment = { vars: { PORT: { default: 8080 } } })))).toEqual([
      { path: 'environment.vars.PORT.default', message: 'must be string' },
    ]);
  });

  it('license needs spdx; execution only takes serial', () => {
    expect(errors(lintWith((m) => (m.license = { file: 'LICENSE' })))).toEqual([
      { path: 'license.spdx', message: 'is required' },
    ]);
    expect(errors(lintWith((m) => (m.execution = { serial: 'yes', workers: 2 })))).toEqual(
      expect.arrayContaining([
        { path: 'execution.serial', message: 'must be boolean' },
        { path: 'execution.workers', message: 'is not allowed (unknown key)' },
      ]),
    );
  });

  it('file-level problems: no folder, no agent.json, invalid JSON', () => {
    expect(lintManifest(path.join(root, 'nope'))).toEqual([
      { path: '', message: `tool folder ${path.join(root, 'nope')} does not exist`, severity: 'error' },
    ]);
    fs.mkdirSync(path.join(root, 'empty'));
    expect(lintManifest(path.join(root, 'empty'))).toEqual([
      { path: '', message: `no agent.json in ${path.join(root, 'empty')}`, severity: 'error' },
    ]);
    const broken = writeTool(root, 'broken', '', '{ "kind": "tool", }');
    const [problem] = lintManifest(broken);
    expect(problem).toMatchObject({ path: '', severity: 'error' });
    expect(problem!.message).toMatch(/^agent\.json is not valid JSON: /);
  });
});

describe('lint warnings and output', () => {
  it('warns about globs that match nothing, missing or unshipped docs, odd names', () => {
    const problems = lintWith((m) => {
      m.files = ['*.mjs', 'assets/**'];
      m.readme = 'README.md';
      m.license = { spdx: 'MIT', file: 'main.mjs' };
      m.name = 'odd-';
    }, 'odd');
    expect(problems).toEqual([
      { path: 'files[1]', message: '"assets/**" matches no file', severity: 'warning' },
      { path: 'readme', message: '"README.md" does not exist in the tool folder', severity: 'warning' },
      {
        path: 'name',
        message: 'the model sees "odd_"; avoid doubled and trailing hyphens',
        severity: 'warning',
      },
    ]);
    // Warnings alone do not stop a manifest from loading.
    expect(checkManifest(path.join(root, 'odd')).manifest?.name).toBe('odd-');
  });

  it('lists errors before warnings and prints one line per problem, like a linter', () => {
    const problems = lintWith((m) => {
      m.readme = 'NOTES.md';
      m.version = 'v1';
    });
    expect(problems.map((p) => p.severity)).toEqual(['error', 'warning']);
    expect(formatManifestProblems(problems)).toBe(
      [
        'agent.json: error version: "v1" is not a semantic version (like 1.2.3)',
        'agent.json: warning readme: "NOTES.md" does not exist in the tool folder',
      ].join('\n'),
    );
    expect(checkManifest(path.join(root, 'probe')).manifest).toBeUndefined();
  });
});
