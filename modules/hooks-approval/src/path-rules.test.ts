/**
 * Rules on path arguments match the path the tool will open, not the string
 * the model wrote (issue 16, point 10): every spelling of one file, through
 * the real hook mounted on a real coordinator, with a real directory tree
 * (symlinks included) as the session's working directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeApproval, type Mounted, mountApproval, removeTempDirs, tempDir } from './__fixtures__/fakes.js';
import { realPathOf } from './path-match.js';

let wd: string;
let home: string;
let savedHome: string | undefined;
const mounted: Mounted[] = [];

beforeAll(() => {
  // <root>/home/ws is the working directory; HOME is <root>/home, so `~/ws/...` spells it too.
  const root = fs.realpathSync(tempDir('path-rules-'));
  home = path.join(root, 'home');
  wd = path.join(home, 'ws');
  for (const dir of ['secret', 'x', 'src', 'SRC-other'])
    fs.mkdirSync(path.join(wd, dir), { recursive: true });
  fs.writeFileSync(path.join(wd, 'secret', 'a'), 'secret\n');
  fs.writeFileSync(path.join(wd, 'src', 'ok.ts'), 'ok\n');
  fs.symlinkSync('/etc', path.join(wd, 'e')); // ln -s /etc e
  fs.symlinkSync('../secret/a', path.join(wd, 'src', 'leak')); // allowed place, resolves into a denied one
  fs.symlinkSync('../secret/new.txt', path.join(wd, 'src', 'dangle')); // dangling, into a denied place
  fs.symlinkSync('/etc', path.join(wd, 'src', 'etc')); // allowed place, resolves to /etc
  fs.symlinkSync('loop', path.join(wd, 'src', 'loop')); // ELOOP: no real path
  fs.symlinkSync('secret', path.join(wd, 'hidden')); // a second name for secret/
  savedHome = process.env.HOME;
  process.env.HOME = home;
});
afterAll(() => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  removeTempDirs();
});
afterEach(async () => {
  for (const m of mounted.splice(0)) await m.cleanup();
});

type Outcome = 'allow' | 'deny' | 'ask';

/** Mount the hook (audit in a temp dir, a provider that would answer Deny) with `wd` as the session's working dir. */
async function hook(
  config: Record<string, unknown>,
): Promise<(tool: string, input: object) => Promise<Outcome>> {
  const m = await mountApproval(config, { approval: new FakeApproval('Deny') });
  mounted.push(m);
  m.coordinator.registerCapability('session.working_dir', wd);
  let n = 0;
  return async (tool, input) => {
    const result = await m.coordinator.hooks.emit('tool:pre', {
      tool_name: tool,
      tool_call_id: `call_${++n}`,
      tool_input: input as Record<string, unknown>,
    });
    if (result.action === 'continue') return 'allow';
    if (result.action === 'ask_user') return 'ask';
    expect(result.reason).toMatch(/^Auto-denied by rule /);
    return 'deny';
  };
}

/** How many `../` lead from the working dir to `/`. */
const up = (): string => '../'.repeat(wd.split('/').length - 1);

describe('deny write_file secret/** (a relative rule: <working_dir>/secret/**)', () => {
  const spellings = (): [string, string][] => [
    ['as written', 'secret/a'],
    ['./', './secret/a'],
    ['a . segment', 'secret/./a'],
    ['x/.. escape', 'x/../secret/a'],
    ['deep .. escape', 'x/../x/../../ws/secret/a'],
    ['absolute', `${wd}/secret/a`],
    ['repeated slashes', `${wd}//secret///a`],
    ['trailing slash', 'secret/a/'],
    ['the directory itself', 'secret'],
    ['the directory with a slash', 'secret/'],
    ['a file that does not exist yet', 'secret/new/deeper.txt'],
    ['~', '~/ws/secret/a'],
    ['a symlink to the directory', 'hidden/a'],
    ['a symlink to a file in it', 'src/leak'],
    ['a dangling symlink into it', 'src/dangle'],
    ['.. through a symlink', 'src/../secret/a'],
    ['file:// URL', `file://${wd}/secret/a`],
    ['file://localhost URL', `file://localhost${wd}/secret/a`],
    ['Windows separators', 'secret\\a'],
    ['Windows separators, absolute', `${wd.replace(/\//g, '\\')}\\secret\\a`],
  ];

  it.each([
    ['relative', 'secret/**'],
    ['./ relative', './secret/**'],
    ['with .. ', 'x/../secret/**'],
    ['absolute', '<wd>/secret/**'],
    ['absolute, repeated slashes', '<wd>//secret/**'],
    ['~', '~/ws/secret/**'],
    ['through a symlinked directory', 'hidden/**'],
    ['a regex on the absolute path', '/\\/ws\\/secret(\\/|$)/'],
  ])('rule spelled %s (%s) denies every spelling of the path', async (_name, pattern) => {
    const decide = await hook({
      rules: [{ tool: 'write_file', when: { file_path: pattern.replace('<wd>', wd) }, action: 'deny' }],
    });
    const outcomes = [];
    for (const [name, file_path] of spellings()) {
      outcomes.push([name, await decide('write_file', { file_path, content: 'x' })]);
    }
    expect(outcomes).toEqual(spellings().map(([name]) => [name, 'deny']));
  });

  it('places that only look like it are not denied (they fall through to the default ask)', async () => {
    const decide = await hook({
      rules: [{ tool: 'write_file', when: { file_path: 'secret/**' }, action: 'deny' }],
    });
    for (const file_path of ['secretx/a', 'x/secret/a', `${wd}-evil/secret/a`, '/secret/a', 'src/ok.ts']) {
      expect([file_path, await decide('write_file', { file_path, content: 'x' })]).toEqual([
        file_path,
        'ask',
      ]);
    }
  });

  it('Linux: names are case-sensitive, so SECRET/a is another file (documented)', async () => {
    const decide = await hook({
      rules: [{ tool: 'write_file', when: { file_path: 'secret/**' }, action: 'deny' }],
    });
    const expected = process.platform === 'linux' ? 'ask' : 'deny';
    expect(await decide('write_file', { file_path: 'SECRET/a', content: 'x' })).toBe(expected);
  });
});

describe('deny read_file /etc/** (read_file is otherwise auto-allowed by the default rules)', () => {
  const spellings = (): string[] => [
    '/etc/passwd',
    '//etc/passwd',
    '///etc//passwd',
    '/./etc/passwd',
    '/etc/./passwd',
    '/tmp/../etc/passwd',
    '/etc/passwd/',
    `${up()}etc/passwd`,
    'e/passwd', // ln -s /etc e
    './e/../e/passwd',
    'src/etc/passwd',
    'file:///etc/passwd',
    'file://localhost//etc/passwd',
    '\\etc\\passwd',
    '/etc',
    '/etc/not-there-yet',
  ];

  it('every spelling is denied, none is auto-allowed', async () => {
    const decide = await hook({
      rules: [{ tool: 'read_file', when: { file_path: '/etc/**' }, action: 'deny' }],
    });
    const outcomes = [];
    for (const file_path of spellings()) outcomes.push([file_path, await decide('read_file', { file_path })]);
    expect(outcomes).toEqual(spellings().map((p) => [p, 'deny']));
  });

  it('other places are still auto-allowed', async () => {
    const decide = await hook({
      rules: [{ tool: 'read_file', when: { file_path: '/etc/**' }, action: 'deny' }],
    });
    for (const file_path of ['/etcetera/passwd', '/tmp/etc/passwd', 'etc/passwd', 'src/ok.ts']) {
      expect([file_path, await decide('read_file', { file_path })]).toEqual([file_path, 'allow']);
    }
  });
});

describe('allow rules fail closed: every spelling, real paths included, must be allowed', () => {
  const rules = [
    { tool: 'write_file', when: { file_path: 'src/**' }, action: 'allow' },
    { tool: 'write_file', when: { file_path: 'secret/**' }, action: 'deny' },
  ];

  it.each([
    ['src/ok.ts', 'allow'],
    ['./src/new.ts', 'allow'],
    [`${'src/../src'}/ok.ts`, 'allow'],
    ['~/ws/src/ok.ts', 'allow'],
    ['src/leak', 'deny'], // symlink into secret/: not allowed, and the deny matches its real path
    ['src/dangle', 'deny'], // dangling symlink into secret/
    ['src/../secret/a', 'deny'],
    ['src/etc/passwd', 'ask'], // resolves to /etc/passwd: not under src/
    ['src/loop', 'ask'], // no real path: never auto-allowed
    ['src\\ok.ts', 'ask'], // also readable as src/ok.ts, but as written it is a file in the working dir
    [`file://${'<wd>'}/src/ok.ts`, 'ask'], // a literal name for tool-filesystem: not under src/
    ['SRC-other/x', 'ask'],
  ])('write_file %s -> %s', async (file_path, expected) => {
    const decide = await hook({ rules, default_rules: false, default_action: 'ask' });
    expect(await decide('write_file', { file_path: file_path.replace('<wd>', wd), content: 'x' })).toBe(
      expected,
    );
  });

  it('a working directory reached through a symlink: relative rules still allow and deny (real paths on both sides)', async () => {
    const link = path.join(home, 'ws-link');
    if (!fs.existsSync(link)) fs.symlinkSync(wd, link);
    const m = await mountApproval(
      { rules, default_rules: false, default_action: 'ask' },
      { approval: new FakeApproval('Deny') },
    );
    mounted.push(m);
    m.coordinator.registerCapability('session.working_dir', link);
    const decide = async (file_path: string, id: string) =>
      (
        await m.coordinator.hooks.emit('tool:pre', {
          tool_name: 'write_file',
          tool_call_id: id,
          tool_input: { file_path, content: '' },
        })
      ).action;
    expect(await decide('src/ok.ts', 'l1')).toBe('continue');
    expect(await decide(`${wd}/src/ok.ts`, 'l2')).toBe('continue');
    expect(await decide(`${wd}/secret/a`, 'l3')).toBe('deny');
    expect(await decide('src/leak', 'l4')).toBe('deny');
  });

  it('an allow on an array of paths needs every element; a deny needs one', async () => {
    const decide = await hook({
      rules: [
        { tool: 'read_many', when: { paths: 'secret/**' }, action: 'deny' },
        { tool: 'read_many', when: { paths: 'src/**' }, action: 'allow' },
      ],
      default_action: 'ask',
    });
    expect(await decide('read_many', { paths: ['src/ok.ts', './src/new.ts'] })).toBe('allow');
    expect(await decide('read_many', { paths: ['src/ok.ts', 'src/etc/passwd'] })).toBe('ask');
    expect(await decide('read_many', { paths: ['src/ok.ts', 'x/../secret/a'] })).toBe('deny');
    expect(await decide('read_many', { paths: [] })).toBe('ask');
    expect(await decide('read_many', { paths: ['src/ok.ts', 3] })).toBe('ask');
    expect(await decide('read_many', { paths: [3, 'x/../secret/a'] })).toBe('deny');
  });

  it('a negated allow (`!secret/**`: anywhere but secret/) holds only when no spelling is in secret/', async () => {
    const decide = await hook({
      rules: [{ tool: 'write_file', when: { file_path: '!secret/**' }, action: 'allow' }],
      default_rules: false,
      default_action: 'ask',
    });
    expect(await decide('write_file', { file_path: 'src/ok.ts', content: '' })).toBe('allow');
    expect(await decide('write_file', { file_path: 'src/leak', content: '' })).toBe('ask');
    expect(await decide('write_file', { file_path: 'x/../secret/a', content: '' })).toBe('ask');
  });
});

describe('search tools: glob path + pattern, grep path', () => {
  it.each([
    [{ pattern: 'secret/*' }, 'deny'],
    [{ pattern: './secret/**/*.txt' }, 'deny'],
    [{ pattern: '*', path: 'secret' }, 'deny'],
    [{ pattern: '*', path: './x/../secret/' }, 'deny'],
    [{ pattern: '*', path: 'hidden' }, 'deny'],
    [{ pattern: '<wd>/secret/*' }, 'deny'],
    [{ pattern: 'a', path: '<wd>//secret' }, 'deny'],
    [{ pattern: '../secret/*', path: 'x' }, 'deny'],
    [{ pattern: '*', path: 'src' }, 'allow'],
    [{ pattern: 'src/**/*.ts' }, 'allow'],
    [{ pattern: '**/*.ts' }, 'allow'],
  ])('glob %j -> %s', async (input, expected) => {
    const decide = await hook({ rules: [{ tool: 'glob', when: { path: 'secret/**' }, action: 'deny' }] });
    const resolved = Object.fromEntries(Object.entries(input).map(([k, v]) => [k, v.replace('<wd>', wd)]));
    expect(await decide('glob', resolved)).toBe(expected);
  });

  it('grep: path spellings of /etc are denied; a missing path is the working dir', async () => {
    const decide = await hook({ rules: [{ tool: 'grep', when: { path: '/etc/**' }, action: 'deny' }] });
    for (const p of ['/etc', '//etc/', '/tmp/../etc', 'e', `${up()}etc/ssh`, 'src/etc']) {
      expect([p, await decide('grep', { pattern: 'root', path: p })]).toEqual([p, 'deny']);
    }
    expect(await decide('grep', { pattern: 'root' })).toBe('allow');
    expect(await decide('grep', { pattern: 'root', path: 'src' })).toBe('allow');
  });
});

describe('a working directory whose name has glob syntax in it', () => {
  it('is matched literally: `(`, `[`, `{`, `!`, `+`, `@`, `*` do not turn into patterns', async () => {
    const odd = path.join(home, 'odd (1)[ab]{c,d}!+@*');
    fs.mkdirSync(path.join(odd, 'secret'), { recursive: true });
    fs.mkdirSync(path.join(home, 'odd (1)a{c,d}!+@*', 'secret'), { recursive: true }); // what [ab] would match
    const m = await mountApproval(
      { rules: [{ tool: 'write_file', when: { file_path: 'secret/**' }, action: 'deny' }] },
      { approval: new FakeApproval('Deny') },
    );
    mounted.push(m);
    m.coordinator.registerCapability('session.working_dir', odd);
    const decide = async (file_path: string, id: string) =>
      (
        await m.coordinator.hooks.emit('tool:pre', {
          tool_name: 'write_file',
          tool_call_id: id,
          tool_input: { file_path, content: '' },
        })
      ).action;
    expect(await decide('./secret/a', 'o1')).toBe('deny');
    expect(await decide(`${odd}/x/../secret/a`, 'o2')).toBe('deny');
    expect(await decide(path.join(home, 'odd (1)a{c,d}!+@*', 'secret', 'a'), 'o3')).toBe('ask_user');
  });
});

describe('which arguments are paths', () => {
  it('path_arguments names them (the last segment of a dotted key); other arguments are matched as written', async () => {
    const decide = await hook({
      path_arguments: ['target'],
      rules: [
        { tool: 'copy', when: { 'options.target': 'secret/**' }, action: 'deny' },
        { tool: 'copy', when: { label: 'secret/**' }, action: 'deny' },
      ],
      default_action: 'ask',
    });
    expect(await decide('copy', { options: { target: 'x/../secret/b' } })).toBe('deny');
    expect(await decide('copy', { options: { target: `${wd}/secret` } })).toBe('deny');
    expect(await decide('copy', { label: 'secret/b' })).toBe('deny');
    expect(await decide('copy', { label: 'x/../secret/b' })).toBe('ask'); // not a path: as written
  });

  it('web_fetch save_to_file is a path argument by default', async () => {
    const decide = await hook({
      rules: [{ tool: 'web_fetch', when: { save_to_file: 'secret/**' }, action: 'deny' }],
    });
    expect(await decide('web_fetch', { url: 'https://e.com', save_to_file: './x/../secret/page.md' })).toBe(
      'deny',
    );
    expect(await decide('web_fetch', { url: 'https://e.com', save_to_file: 'src/page.md' })).toBe('allow');
  });

  it('without the session.working_dir capability, relative paths are relative to the process cwd', async () => {
    const m = await mountApproval({
      rules: [{ tool: 'read_file', when: { file_path: 'secret-dir/**' }, action: 'deny' }],
    });
    mounted.push(m);
    const result = await m.coordinator.hooks.emit('tool:pre', {
      tool_name: 'read_file',
      tool_call_id: 'c1',
      tool_input: { file_path: path.join(process.cwd(), 'secret-dir', 'f') },
    });
    expect(result.action).toBe('deny');
  });
});

describe('realPathOf', () => {
  it('resolves existing paths, missing tails, dangling links; undefined for loops', () => {
    expect(realPathOf(`${wd}/e/passwd`)).toBe('/etc/passwd');
    expect(realPathOf(`${wd}/hidden/new/f`)).toBe(`${wd}/secret/new/f`);
    expect(realPathOf(`${wd}/src/dangle`)).toBe(`${wd}/secret/new.txt`);
    expect(realPathOf(`${wd}/missing/../secret/a`)).toBe(`${wd}/secret/a`);
    expect(realPathOf(`${wd}/src/loop`)).toBeUndefined();
    expect(realPathOf(`${wd}/src/ok.ts/child`)).toBeUndefined();
  });
});
