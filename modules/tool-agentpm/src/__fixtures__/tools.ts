/**
 * Test helpers: the checked-in example tools, and tool folders written into a
 * temp dir from a manifest and a script (for misbehaving tools and manifest
 * errors).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The checked-in Node example (`text-stats`). */
export const NODE_TOOL: string = path.join(here, 'node-tool');
/** The checked-in Python 3 example (`word-freq`). */
export const PYTHON_TOOL: string = path.join(here, 'python-tool');

/** A temp dir removed by the returned function. */
export function tempDir(prefix = 'tool-agentpm-'): { dir: string; remove: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Reads the whole of stdin as JSON (prepended to every generated Node script). */
export const READ_INPUT = `
const readInput = () => new Promise((resolve) => {
  let raw = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (c) => { raw += c; });
  process.stdin.on('end', () => resolve(JSON.parse(raw)));
});
`;

/** A valid manifest for a Node tool whose script is `main.mjs` (override any field). */
export function manifest(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'tool',
    name,
    version: '1.0.0',
    description: `Test tool ${name}.`,
    entrypoint: { command: 'node', args: ['main.mjs'] },
    inputs: { type: 'object', properties: {} },
    outputs: { type: 'object' },
    files: ['*.mjs'],
    ...overrides,
  };
}

/**
 * Write a tool folder `<root>/<name>` with `agent.json` (the given manifest, or
 * a default one) and `main.mjs` (`READ_INPUT` + `body`). Returns the folder.
 */
export function writeTool(
  root: string,
  name: string,
  body: string,
  manifestData: Record<string, unknown> | string = manifest(name),
): string {
  const folder = path.join(root, name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'main.mjs'), `${READ_INPUT}\n${body}\n`);
  fs.writeFileSync(
    path.join(folder, 'agent.json'),
    typeof manifestData === 'string' ? manifestData : JSON.stringify(manifestData, null, 2),
  );
  return folder;
}

/** Node script bodies for misbehaving tools. */
export const SCRIPTS = {
  /** Echoes its input as `{ input }`. */
  echo: `const input = await readInput(); process.stdout.write(JSON.stringify({ input }));`,
  /** Prints text that is not JSON and exits 0. */
  garbage: `await readInput(); process.stdout.write('Result: 42 (this is not JSON) {');`,
  /** Writes to stderr and exits 3. */
  exitCode: `await readInput(); process.stderr.write('loading...\\nboom: the widget is broken\\n'); process.exit(3);`,
  /** Prints JSON that breaks an outputs schema requiring an integer count. */
  badOutput: `await readInput(); process.stdout.write(JSON.stringify({ count: 'three' }));`,
  /** Prints its whole environment. */
  envDump: `await readInput(); process.stdout.write(JSON.stringify({ env: process.env }));`,
  /**
   * Starts a grandchild \`sleep <marker>\` in its group, writes the grandchild's
   * pid to \`pidfile\`, then never ends.
   */
  hang: `
import { spawn } from 'node:child_process';
import fs from 'node:fs';
const { marker, pidfile } = await readInput();
const child = spawn('sleep', [marker], { stdio: 'ignore' });
child.on('spawn', () => {
  // Written whole, then renamed: a watcher never sees a half-written file.
  fs.writeFileSync(\`\${pidfile}.tmp\`, String(child.pid));
  fs.renameSync(\`\${pidfile}.tmp\`, pidfile);
});
setInterval(() => {}, 1000);
`,
  /** Writes \`mb\` MB to stdout (respecting back-pressure), then creates \`donefile\`. */
  flood: `
import fs from 'node:fs';
const { mb, donefile } = await readInput();
const chunk = Buffer.alloc(1024 * 1024, 'x');
for (let i = 0; i < mb; i++) {
  if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}
fs.writeFileSync(donefile, 'done');
`,
  /**
   * Creates \`<dir>/<id>\` and waits (up to \`wait_ms\`, polling) until \`peers\`
   * files exist there: \`met\` says whether all peers were seen running.
   */
  barrier: `
import fs from 'node:fs';
import path from 'node:path';
const { dir, id, peers, wait_ms } = await readInput();
fs.writeFileSync(path.join(dir, id), '');
const deadline = Date.now() + wait_ms;
let met = false;
while (Date.now() < deadline) {
  if (fs.readdirSync(dir).length >= peers) { met = true; break; }
  await new Promise((resolve) => setTimeout(resolve, 10));
}
process.stdout.write(JSON.stringify({ id, met }));
`,
} as const;

/** Pids of the processes whose full command line matches `pattern` (`pgrep -f`). */
export function pgrep(pattern: string): number[] {
  const result = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' });
  if (result.error) throw result.error;
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}
