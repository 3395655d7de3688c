/**
 * Files that config may read (issue 37, attack class 4): hostile bundles in
 * temp folders try to pull outside files into the system prompt through
 * @mentions, includes, context files and agent files. Each is refused with a
 * message naming the reference, the declaring file and why; the secret never
 * reaches the prompt; nothing blocks.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleFailure, removeTempTrees, tempTree } from './__fixtures__/files.js';
import { loadAgentDir, resolveAgents } from './agents.js';
import { BundleError } from './errors.js';
import { loadBundle } from './load.js';
import { buildSystemPrompt } from './mentions.js';
import {
  BundleReferenceError,
  FILE_READ_ERRORS,
  FileReadError,
  type ReferenceRefusal,
  readRegularFile,
  referenceReader,
} from './references.js';

afterEach(removeTempTrees);

const SECRET = 'SECRET-CONTENT-0xdeadbeef';

/** A home folder with the usual credentials, a workspace and an outside folder, all holding SECRET. */
function world(): { home: string; outside: string } {
  const home = tempTree({
    '.ssh/id_rsa': SECRET,
    '.aws/credentials': SECRET,
    '.netrc': SECRET,
    'notes.md': 'Plain notes.',
  });
  const outside = tempTree({ x: SECRET, 'x.md': SECRET, 'secret.md': SECRET });
  return { home, outside };
}

/** The prompt of the bundle in `dir` (its `bundle.md`), with the warnings it gave. */
async function promptOf(
  dir: string,
  options: { home: string; roots?: string[]; file?: string },
): Promise<{ prompt: string; warnings: string[] }> {
  const warnings: string[] = [];
  const bundle = await loadBundle(path.join(dir, options.file ?? 'bundle.md'), { baseDir: dir });
  const prompt =
    (await buildSystemPrompt(bundle, {
      home: options.home,
      roots: options.roots ?? [],
      onWarning: (w) => warnings.push(w),
    })) ?? '';
  return { prompt, warnings };
}

function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

const refusal = bundleFailure;

function reasonOf(fn: () => unknown): ReferenceRefusal | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof BundleReferenceError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('@mentions that leave the bundle are refused with a marker and a warning', () => {
  it.each([
    ['../../x', 'outside'],
    ['../../../../../../../../etc/passwd', 'outside'],
    ['~/.ssh/id_rsa', 'invalid'],
    ['~/.aws/credentials', 'invalid'],
    ['~/notes.md', 'invalid'],
    ['file:///etc/passwd', 'invalid'],
    ['../../x.md', 'outside'],
  ] as const)('@%s: %s', async (mention, reason) => {
    const { home, outside } = world();
    const dir = tempTree({ 'bundle.md': `Read @${mention} now.` });
    // The outside folder sits two levels up from the bundle's folder for ../../x.
    const nested = path.join(outside, 'a', 'b');
    fs.mkdirSync(nested, { recursive: true });
    fs.cpSync(dir, nested, { recursive: true });
    const { prompt, warnings } = await promptOf(nested, { home });
    expect(prompt).not.toContain(SECRET);
    expect(prompt).toContain(`<refused_reference reference="@${mention}"`);
    expect(prompt).toContain(`reason="${reason}"`);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `The mention '@${mention}' in ${path.join(nested, 'bundle.md')} is refused`,
    );
  });

  it('percent-encoded mentions are never decoded: nothing is read', async () => {
    const { home, outside } = world();
    const nested = path.join(outside, 'a', 'b');
    fs.mkdirSync(nested, { recursive: true });
    fs.writeFileSync(path.join(nested, 'bundle.md'), 'Read @%2e%2e/%2e%2e/x @%2E%2E/x @%252e%252e/x @..%2fx');
    const { prompt, warnings } = await promptOf(nested, { home });
    expect(prompt).not.toContain(SECRET);
    expect(prompt).not.toContain('<context_file');
    // A % ends a mention, and trailing dots are punctuation: none of these is a mention at all.
    expect(warnings).toEqual([]);
  });

  it('@/abs/path outside the roots: refused, naming where it resolves and what is allowed', async () => {
    const { home, outside } = world();
    const dir = tempTree({ 'bundle.md': `See @${path.join(outside, 'secret.md')}` });
    const { prompt, warnings } = await promptOf(dir, { home });
    expect(prompt).not.toContain(SECRET);
    expect(warnings[0]).toContain(`it resolves to ${path.join(outside, 'secret.md')}, outside the bundle`);
    expect(warnings[0]).toContain(`allowed: ${dir}`);
  });

  it('@ns:../.. out of a namespace, also an app namespace: refused', async () => {
    const { home, outside } = world();
    const dir = tempTree({
      'lib/bundle.yaml': 'bundle: {name: lib}\n',
      'lib/ok.md': 'Lib file.',
      'bundle.md': '---\nincludes: [./lib]\n---\n@lib:../bundle.md @lib:../../x @user:../x @lib:ok.md',
    });
    fs.cpSync(path.join(outside, 'x'), path.join(dir, 'x'));
    const warnings: string[] = [];
    const prompt =
      (await buildSystemPrompt(await loadBundle(path.join(dir, 'bundle.md')), {
        home,
        namespaces: { user: path.join(dir, 'lib') },
        onWarning: (w) => warnings.push(w),
      })) ?? '';
    expect(prompt).toContain('Lib file.');
    expect(prompt).not.toContain(SECRET);
    expect(warnings).toHaveLength(3);
    for (const w of warnings) expect(w).toMatch(/leaves the folder of its namespace|outside the bundle/);
  });

  it('a symlink in the workspace pointing out, and a chain of symlinks, are refused after realpath', async () => {
    const { home, outside } = world();
    const workspace = tempTree({ 'bundle.md': '@link.md @chain1.md @inside.md', 'real.md': 'Inside file.' });
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(workspace, 'link.md'));
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(outside, 'chain3.md'));
    fs.symlinkSync(path.join(outside, 'chain3.md'), path.join(workspace, 'chain2.md'));
    fs.symlinkSync(path.join(workspace, 'chain2.md'), path.join(workspace, 'chain1.md'));
    fs.symlinkSync(path.join(workspace, 'real.md'), path.join(workspace, 'inside.md'));
    const { prompt, warnings } = await promptOf(workspace, { home, roots: [workspace] });
    expect(prompt).not.toContain(SECRET);
    expect(prompt).toContain('Inside file.');
    expect(warnings).toHaveLength(2);
    for (const w of warnings) expect(w).toContain('(through a symlink)');
  });

  it('a symlinked folder out of the bundle is refused for every file under it', async () => {
    const { home, outside } = world();
    const dir = tempTree({ 'bundle.md': '@docs/secret.md @docs' });
    fs.symlinkSync(outside, path.join(dir, 'docs'));
    const { prompt, warnings } = await promptOf(dir, { home });
    expect(prompt).not.toContain(SECRET);
    expect(prompt).not.toContain('Directory listing');
    expect(warnings).toHaveLength(2);
  });

  it('secret paths inside a root are refused: .env, keys, and the home credentials when the workspace is the home', async () => {
    const { home } = world();
    fs.writeFileSync(path.join(home, 'bundle.md'), '@.ssh/id_rsa @.aws/credentials @.netrc @notes.md');
    const bundleDir = tempTree({
      'bundle.md': '@.env @.env.local @server.pem @deploy.key @keys/id_ed25519 @.env.example',
      '.env': SECRET,
      '.env.local': SECRET,
      'server.pem': SECRET,
      'deploy.key': SECRET,
      'keys/id_ed25519': SECRET,
      '.env.example': 'EXAMPLE=1',
    });
    const inHome = await promptOf(home, { home, roots: [home] });
    expect(inHome.prompt).not.toContain(SECRET);
    expect(inHome.warnings).toHaveLength(3);
    for (const w of inHome.warnings) expect(w).toContain('is a secret path');
    // notes.md in the home is not a secret: a workspace that is the home may mention it.
    expect(inHome.prompt).toContain(`@notes.md -> ${path.join(home, 'notes.md')}`);

    const inBundle = await promptOf(bundleDir, { home });
    expect(inBundle.prompt).not.toContain(SECRET);
    expect(inBundle.prompt).toContain('EXAMPLE=1');
    expect(inBundle.warnings).toHaveLength(5);
    for (const w of inBundle.warnings) expect(w).toContain('is a secret path');
  });

  it('a FIFO and a device are refused without blocking; a file over the cap and a prompt over the budget too', async () => {
    const { home } = world();
    const dir = tempTree({
      'bundle.md': '@fifo.md @zero @huge.md @a.md @b.md',
      'a.md': 'a'.repeat(600),
      'b.md': 'b'.repeat(600),
    });
    mkfifo(path.join(dir, 'fifo.md'));
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero'));
    fs.writeFileSync(path.join(dir, 'huge.md'), Buffer.alloc(4096, 0x61));
    const warnings: string[] = [];
    const prompt =
      (await buildSystemPrompt(await loadBundle(dir), {
        home,
        roots: ['/dev'],
        limits: { maxFileBytes: 1024, maxTotalBytes: 1000 },
        onWarning: (w) => warnings.push(w),
      })) ?? '';
    expect(prompt).toContain('a'.repeat(600));
    expect(prompt).not.toContain('b'.repeat(600));
    expect(warnings.map((w) => /is refused: (.*?)\. [A-Z]/.exec(w)?.[1])).toEqual([
      `${path.join(dir, 'fifo.md')} is not a regular file (a FIFO, a socket or a device)`,
      '/dev/zero is not a regular file (a FIFO, a socket or a device)',
      `${path.join(dir, 'huge.md')} has 4096 bytes, over the cap of 1024`,
      'reading it would bring the files read to 1200 bytes, over the budget of 1000',
    ]);
  });

  it('a mention inside a mentioned file starts from that file, and is held to the same roots', async () => {
    const { home, outside } = world();
    const dir = tempTree({
      'bundle.md': '@docs/guide.md',
      'docs/guide.md': 'Guide: @../../x @tips.md',
      'docs/tips.md': 'Tips.',
    });
    const nested = path.join(outside, 'p', 'q');
    fs.mkdirSync(nested, { recursive: true });
    fs.cpSync(dir, nested, { recursive: true });
    const { prompt, warnings } = await promptOf(nested, { home });
    expect(prompt).toContain('Tips.');
    expect(prompt).not.toContain(SECRET);
    expect(warnings).toEqual([
      expect.stringContaining(`'@../../x' in ${path.join(nested, 'docs', 'guide.md')}`),
    ]);
  });

  it('a mention cycle reads each file once and ends; a context key that points out is refused through its mention too', async () => {
    const { home, outside } = world();
    const nested = path.join(outside, 'n', 'm');
    fs.mkdirSync(nested, { recursive: true });
    fs.writeFileSync(path.join(nested, 'a.md'), 'A mentions @b.md');
    fs.writeFileSync(path.join(nested, 'b.md'), 'B mentions @a.md');
    fs.writeFileSync(path.join(nested, 'bundle.md'), '---\nbundle: {name: me}\n---\n@a.md @me:evil');
    const cyclic = await promptOf(nested, { home });
    expect(cyclic.prompt.match(/<context_file/g)).toHaveLength(2);
    fs.writeFileSync(
      path.join(nested, 'bundle.md'),
      '---\nbundle: {name: me}\ncontext:\n  evil: ../../x\n---\n@me:evil',
    );
    await expect(promptOf(nested, { home })).rejects.toThrow(
      `The context file '../../x' in ${path.join(nested, 'bundle.md')} is refused`,
    );
  });

  it('the same bundle run from two working directories reads the same files', async () => {
    const { home } = world();
    const dir = tempTree({
      'bundle.md': '@guide.md @docs/a.md',
      'guide.md': 'Bundle guide.',
      'docs/a.md': 'A.',
    });
    const cwdA = tempTree({ 'guide.md': 'Workspace A guide.' });
    const cwdB = tempTree({ 'guide.md': 'Workspace B guide.', 'docs/a.md': 'B.' });
    const a = await buildSystemPrompt(await loadBundle(path.join(dir, 'bundle.md'), { baseDir: cwdA }), {
      home,
      roots: [cwdA],
    });
    const b = await buildSystemPrompt(await loadBundle(path.join(dir, 'bundle.md'), { baseDir: cwdB }), {
      home,
      roots: [cwdB],
    });
    expect(a).toBe(b);
    expect(a).toContain('Bundle guide.');
    expect(a).not.toMatch(/Workspace [AB]/);
  });
});

describe('context files: a refused entry is an error naming it and its bundle', () => {
  it.each([
    ['an absolute path outside', (outside: string) => path.join(outside, 'secret.md'), 'outside'],
    ['../..', () => '../../x', 'outside'],
    ['~', () => '~/.ssh/id_rsa', 'invalid'],
    ['a secret file name', () => '.env', 'secret'],
    ['a URL', () => 'https://example.invalid/x.md', 'invalid'],
  ] as const)('context.include: %s', async (_, ref, reason) => {
    const { home, outside } = world();
    const nested = path.join(outside, 'deep', 'er');
    fs.mkdirSync(nested, { recursive: true });
    const reference = ref(outside);
    fs.writeFileSync(
      path.join(nested, 'bundle.yaml'),
      `bundle: {name: me}\ncontext:\n  include: ['${reference}']\n`,
    );
    fs.writeFileSync(path.join(nested, '.env'), SECRET);
    const bundle = await loadBundle(nested);
    const error = await refusal(buildSystemPrompt(bundle, { home }));
    expect(error).toBeInstanceOf(BundleReferenceError);
    expect((error as BundleReferenceError).reason).toBe(reason);
    expect(error.message).toContain(
      `The context file '${reference}' in ${path.join(nested, 'bundle.yaml')} is refused`,
    );
  });

  it('legitimate context files still load: relative, and ns:path into an included bundle', async () => {
    const dir = tempTree({
      'lib/bundle.yaml': 'bundle: {name: lib}\n',
      'lib/context/shared.md': 'Shared.',
      'bundle.yaml':
        'bundle: {name: me}\nincludes: [./lib]\ncontext:\n  include: [lib:context/shared.md, local.md]\n',
      'local.md': 'Local.',
    });
    const prompt = await buildSystemPrompt(await loadBundle(dir), { home: tempTree() });
    expect(prompt).toContain('Shared.');
    expect(prompt).toContain('Local.');
  });
});

describe('includes that leave the bundle are refused', () => {
  it.each([
    ['../../x.yaml', 'outside'],
    ['OUTSIDE/x.yaml', 'outside'],
    ['~/x.yaml', 'invalid'],
    ['%2e%2e/x.yaml', 'invalid'],
    ['FILEURL', 'outside'],
    ['../..#subdirectory=x.yaml', 'outside'],
  ])('includes: [%s]', async (include, _reason) => {
    const { outside } = world();
    fs.writeFileSync(path.join(outside, 'x.yaml'), `tools: [{module: stolen}]\n`);
    const nested = path.join(outside, 'a', 'b');
    fs.mkdirSync(nested, { recursive: true });
    const ref = include
      .replace('OUTSIDE', outside)
      .replace('FILEURL', `file://${path.join(outside, 'x.yaml')}`);
    fs.writeFileSync(path.join(nested, 'root.yaml'), `includes: ['${ref}']\n`);
    const error = await refusal(loadBundle(path.join(nested, 'root.yaml'), { baseDir: nested }));
    expect(error.message).toContain(`${path.join(nested, 'root.yaml')} includes '${ref}'`);
    expect(error.message).toMatch(/is refused: /);
  });

  it('an include through ns:../.. and a namespace_root that climbs out are refused', async () => {
    const { home, outside } = world();
    const nested = path.join(outside, 'a', 'b');
    fs.mkdirSync(path.join(nested, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'x.yaml'), 'tools: [{module: stolen}]\n');
    fs.writeFileSync(path.join(nested, 'lib', 'bundle.yaml'), 'bundle: {name: lib}\n');
    fs.writeFileSync(path.join(nested, 'root.yaml'), 'includes: [./lib, "lib:../../../x"]\n');
    const error = await refusal(loadBundle(path.join(nested, 'root.yaml')));
    expect(error.message).toContain("includes 'lib:../../../x'");
    expect(error.message).toContain('leaves the folder of its namespace');

    fs.writeFileSync(
      path.join(nested, 'evil.md'),
      '---\nbundle: {name: evil, namespace_root: ../..}\n---\n@evil:secret.md',
    );
    const { prompt, warnings } = await promptOf(nested, { home, file: 'evil.md' });
    expect(prompt).not.toContain(SECRET);
    expect(warnings).toEqual([expect.stringContaining("'@evil:secret.md'")]);
  });

  it('an include cycle and includes deeper than 10 levels stop with a bounded error', async () => {
    const cyclic = tempTree({ 'a.yaml': 'includes: [./b.yaml]\n', 'b.yaml': 'includes: [./a.yaml]\n' });
    expect((await refusal(loadBundle(path.join(cyclic, 'a.yaml')))).message).toContain('Circular include');
    const files: Record<string, string> = {};
    for (let i = 0; i < 14; i++) files[`l${i}.yaml`] = `includes: [./l${i + 1}.yaml]\n`;
    files['l14.yaml'] = 'tools: [{module: bottom}]\n';
    const deep = tempTree(files);
    const error = await refusal(loadBundle(path.join(deep, 'l0.yaml')));
    expect(error.message).toContain('Includes nest deeper than 10 levels');
  });

  it('an include that is a FIFO, a bundle file over the cap: an error, not a hang', async () => {
    const dir = tempTree({ 'root.yaml': 'includes: [./pipe.yaml]\n' });
    mkfifo(path.join(dir, 'pipe.yaml'));
    const error = await refusal(loadBundle(path.join(dir, 'root.yaml')));
    expect(error.message).toContain('is not a regular file');
    const big = tempTree({ 'big.yaml': `# ${'x'.repeat(300 * 1024)}\n` });
    expect((await refusal(loadBundle(path.join(big, 'big.yaml')))).message).toContain('over the cap');
  });

  it('bundle files over the per-file cap or the load budget stop the load', async () => {
    const dir = tempTree({
      'root.yaml': 'includes: [./a.yaml, ./b.yaml]\n',
      'a.yaml': `# ${'a'.repeat(60)}\ntools: [{module: a}]\n`,
      'b.yaml': `# ${'b'.repeat(60)}\ntools: [{module: b}]\n`,
    });
    const root = path.join(dir, 'root.yaml');
    expect((await loadBundle(root, { limits: { maxTotalBytes: 1000 } })).tools).toHaveLength(2);
    expect((await refusal(loadBundle(root, { limits: { maxTotalBytes: 150 } }))).message).toContain(
      'The bundle files of this load pass 150 bytes',
    );
    expect((await refusal(loadBundle(root, { limits: { maxFileBytes: 50 } }))).message).toContain(
      'over the cap of 50',
    );
  });

  it('legitimate includes still load: relative inside the bundle, ns:path, a sibling inside the roots', async () => {
    const dir = tempTree({
      'bundles/app/bundle.yaml':
        'bundle: {name: app}\nincludes: [./behaviors/x.yaml, ../shared/y.yaml, app:behaviors/z]\n',
      'bundles/app/behaviors/x.yaml': 'tools: [{module: x}]\n',
      'bundles/app/behaviors/z.yaml': 'tools: [{module: z}]\n',
      'bundles/shared/y.yaml': 'tools: [{module: y}]\n',
    });
    const bundle = await loadBundle(path.join(dir, 'bundles/app'), { roots: [dir] });
    expect(bundle.tools.map((t) => t.module)).toEqual(['x', 'y', 'z']);
    // Without the workspace as a root, the sibling is outside the bundle.
    const error = await refusal(loadBundle(path.join(dir, 'bundles/app'), { baseDir: tempTree() }));
    expect(error.message).toContain("includes '../shared/y.yaml'");
  });
});

describe('agent files', () => {
  it('a roster name that climbs out of its namespace is refused; a normal one loads', async () => {
    const { outside } = world();
    const nested = path.join(outside, 'a', 'b');
    fs.mkdirSync(path.join(nested, 'agents'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'evil.md'), `---\nname: evil\n---\n${SECRET}`);
    fs.writeFileSync(
      path.join(nested, 'agents', 'good.md'),
      '---\nname: good\ndescription: Good.\n---\nBe good.',
    );
    fs.writeFileSync(path.join(nested, 'bundle.yaml'), 'bundle: {name: me}\nagents:\n  include: [me:good]\n');
    const bundle = await loadBundle(nested);
    expect(resolveAgents(bundle).agents['me:good']?.instruction).toBe('Be good.');
    const evil = { ...bundle, agents: { 'me:../../../evil': { name: 'me:../../../evil' } } };
    expect(() => resolveAgents(evil)).toThrow(
      /The agent file 'me:\.\.\/\.\.\/\.\.\/evil' .* is refused: it leaves the folder of its namespace/,
    );
  });

  it('an agent folder with a symlink out, a secret-named file and a FIFO: each reported, the others load', () => {
    const { outside } = world();
    const dir = tempTree({ 'ok.md': '---\nname: ok\n---\nFine.' });
    fs.writeFileSync(path.join(outside, 'leak.md'), `---\nname: leak\n---\n${SECRET}`);
    fs.symlinkSync(path.join(outside, 'leak.md'), path.join(dir, 'leak.md'));
    mkfifo(path.join(dir, 'pipe.md'));
    const listing = loadAgentDir(dir);
    expect(Object.keys(listing.agents)).toEqual(['ok']);
    expect(listing.problems).toHaveLength(2);
    expect(listing.problems.join('\n')).not.toContain(SECRET);
  });
});

describe('referenceReader and readRegularFile', () => {
  it('refuses NUL, control characters, backslashes, $VAR, URL schemes and drive letters lexically', () => {
    const dir = tempTree({ 'a.md': 'A' });
    const reader = referenceReader({ roots: [dir] });
    const from = path.join(dir, 'bundle.md');
    for (const ref of [
      'a\u0000.md',
      'a\n.md',
      '..\\..\\x',
      '$HOME/x',
      'https://h/x',
      'file:///etc/passwd',
      'C:/x',
      '',
    ]) {
      expect(reasonOf(() => reader.resolve(ref, from, { kind: 'include' }))).toBe('invalid');
    }
    expect(reader.resolve('a.md', from).file).toBe(path.join(dir, 'a.md'));
    expect(reader.resolve(path.join(dir, 'a.md'), from).file).toBe(path.join(dir, 'a.md'));
  });

  it('a prefix of a root is not inside it (/srv/app vs /srv/app-evil)', () => {
    const parent = tempTree({ 'app/a.md': 'A', 'app-evil/b.md': SECRET });
    const reader = referenceReader({ roots: [path.join(parent, 'app')] });
    expect(reasonOf(() => reader.resolve('../app-evil/b.md', path.join(parent, 'app', 'bundle.md')))).toBe(
      'outside',
    );
  });

  it('with no roots nothing is read; a missing file is missing, not outside', () => {
    const dir = tempTree({ 'a.md': 'A' });
    expect(reasonOf(() => referenceReader({ roots: [] }).resolve('a.md', path.join(dir, 'b.md')))).toBe(
      'outside',
    );
    expect(reasonOf(() => referenceReader({ roots: [dir] }).resolve('gone.md', path.join(dir, 'b.md')))).toBe(
      'missing',
    );
  });

  it('readRegularFile: a FIFO, /dev/zero and a folder are refused by fstat without blocking', () => {
    const dir = tempTree();
    mkfifo(path.join(dir, 'pipe'));
    for (const file of [path.join(dir, 'pipe'), '/dev/zero', dir]) {
      expect(() => readRegularFile(file)).toThrow(FileReadError);
      try {
        readRegularFile(file);
      } catch (error) {
        expect((error as FileReadError).reason).toBe('not-a-file');
        // Declared in the error factory, but not a bundle error: its callers wrap it in one.
        expect(FILE_READ_ERRORS.is(error, 'BUNDLE_FILE_REFUSED')).toBe(true);
        expect(BundleError.is(error)).toBe(false);
      }
    }
    fs.writeFileSync(path.join(dir, 'f'), 'hello');
    expect(readRegularFile(path.join(dir, 'f'))).toBe('hello');
    expect(() => readRegularFile(path.join(dir, 'f'), 4)).toThrow(/over the cap of 4/);
  });

  it('denied folders are never read, even inside a root and through an own namespace', () => {
    const user = tempTree({ 'prefs.md': 'Prefs.', 'projects/p/sessions/s/transcript.jsonl': SECRET });
    const reader = referenceReader({
      roots: [],
      ownNamespaces: { user },
      denied: [path.join(user, 'projects')],
    });
    const from = path.join(user, 'bundle.md');
    expect(reader.readReference('user:prefs.md', from).text).toBe('Prefs.');
    expect(reasonOf(() => reader.resolve('user:projects/p/sessions/s/transcript.jsonl', from))).toBe(
      'secret',
    );
  });

  it('~/ reaches only the home roots given (the user own folders), never the rest of the home', () => {
    const { home } = world();
    fs.mkdirSync(path.join(home, '.amplifier'));
    fs.writeFileSync(path.join(home, '.amplifier', 'AGENTS.md'), 'Mine.');
    const reader = referenceReader({ roots: [], home, homeRoots: [path.join(home, '.amplifier')] });
    const from = path.join(home, 'plan');
    expect(reader.readReference('~/.amplifier/AGENTS.md', from).text).toBe('Mine.');
    expect(reasonOf(() => reader.resolve('~/notes.md', from))).toBe('outside');
    expect(reasonOf(() => reader.resolve('~/.amplifier/../.ssh/id_rsa', from))).toBe('outside');
  });
});
