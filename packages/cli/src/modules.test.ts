import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeFile } from './__fixtures__/cli.js';

afterEach(removeTempDirs);

const BUNDLED = [
  'context-simple',
  'hooks-logging',
  'hooks-redaction',
  'hooks-streaming-ui',
  'loop-basic',
  'provider-anthropic',
  'provider-mock',
  'provider-openai',
  'tool-bash',
  'tool-delegate',
  'tool-filesystem',
  'tool-web',
];

/** A module package folder (package.json with the "amplifier" field, index.js). */
function modulePackage(dir: string, id: string, type: string, index: string): string {
  writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: `amplifier-module-${id}`,
      version: '1.2.3',
      type: 'module',
      main: 'index.js',
      amplifier: { module: id, type },
    }),
  );
  writeFile(path.join(dir, 'index.js'), index);
  return dir;
}

const GOOD_TOOL = `export async function mount(coordinator) {
  coordinator.mount('tools', {
    name: 'shout',
    description: 'Upper-cases a text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(input) {
      if (typeof input.text !== 'string') return { success: false, error: { message: 'text is required' } };
      return { success: true, output: input.text.toUpperCase() };
    },
  }, { name: 'shout' });
}
`;

describe('modules list', () => {
  it("lists the CLI's bundled modules from any directory (id, type, package, version)", async () => {
    const cwd = tempDir();
    const result = await runCli(['modules', 'list'], { cwd, env: cliEnv(tempDir()) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ID\s+TYPE\s+PACKAGE\s+VERSION\s+ALSO ANSWERS TO\n/);
    expect(result.stdout).toMatch(/loop-basic\s+orchestrator\s+@amplifier\/loop-basic\s+\d+\.\d+\.\d+/);
    const json = await runCli(['modules', 'list', '--json'], { cwd, env: cliEnv(tempDir()) });
    const ids = (JSON.parse(json.stdout) as Array<{ id: string }>).map((m) => m.id);
    for (const id of BUNDLED) expect(ids).toContain(id);
  });

  it('adds the modules the current project declares as dependencies', async () => {
    const cwd = tempDir();
    writeFile(
      path.join(cwd, 'package.json'),
      JSON.stringify({ name: 'app', dependencies: { 'amplifier-module-shout': '1.2.3' } }),
    );
    modulePackage(path.join(cwd, 'node_modules', 'amplifier-module-shout'), 'shout', 'tool', GOOD_TOOL);
    const result = await runCli(['modules', 'list', '--json'], { cwd, env: cliEnv(tempDir()) });
    expect(result.code, result.stderr).toBe(0);
    const shout = (JSON.parse(result.stdout) as Array<Record<string, string>>).find((m) => m.id === 'shout');
    expect(shout).toMatchObject({ type: 'tool', package: 'amplifier-module-shout', version: '1.2.3' });
  });
});

describe('module validate', () => {
  it('a good module folder passes (exit 0) and prints the report', async () => {
    const cwd = tempDir();
    const dir = modulePackage(path.join(cwd, 'shout'), 'shout', 'tool', GOOD_TOOL);
    const result = await runCli(['module', 'validate', dir], { cwd, env: cliEnv(tempDir()) });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^PASSED: \d+\/\d+ checks passed/m);
    expect(result.stdout).toContain('tool_execute_empty_input');
  });

  it('a broken module folder fails (exit 1) with the failing checks', async () => {
    const cwd = tempDir();
    const dir = modulePackage(
      path.join(cwd, 'broken'),
      'broken',
      'tool',
      "export async function mount(coordinator) { coordinator.mount('tools', { name: 'Bad Name', execute() { throw new Error('boom'); } }, { name: 'Bad Name' }); }\n",
    );
    const result = await runCli(['module', 'validate', dir], { cwd, env: cliEnv(tempDir()) });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAILED: /m);
    expect(result.stdout).toMatch(/✗ \[error\] tool_execute_empty_input: .*threw: boom/);
    const json = await runCli(['module', 'validate', dir, '--json'], { cwd, env: cliEnv(tempDir()) });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ passed: false });
  });

  it('validates a bundled module by id, and --type checks the declared type', async () => {
    const cwd = tempDir();
    const good = await runCli(['module', 'validate', 'context-simple'], { cwd, env: cliEnv(tempDir()) });
    expect(good.code, good.stdout + good.stderr).toBe(0);
    const wrongType = await runCli(['module', 'validate', 'context-simple', '--type', 'tool'], {
      cwd,
      env: cliEnv(tempDir()),
    });
    expect(wrongType.code).toBe(1);
    expect(wrongType.stdout).toContain('module_type');
    const badType = await runCli(['module', 'validate', 'context-simple', '--type', 'gadget'], {
      cwd,
      env: cliEnv(tempDir()),
    });
    expect(badType.code).toBe(2);
  });

  it('an unknown id fails with the resolution problem', async () => {
    const cwd = tempDir();
    const result = await runCli(['module', 'validate', 'tool-nowhere'], { cwd, env: cliEnv(tempDir()) });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('module_resolvable');
  });
});
