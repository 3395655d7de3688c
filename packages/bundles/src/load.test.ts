import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { skipUnless } from '@amplifier/test-fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleFailure, gitRepo, hasGit, removeTempTrees, tempTree } from './__fixtures__/files.js';
import { BundleDependencyError, BundleNotFoundError } from './errors.js';
import { gitResolver } from './git.js';
import { loadBundle } from './load.js';

afterEach(removeTempTrees);

const GIT = hasGit();

const failure = bundleFailure;

describe('includes', () => {
  it('compose in declared order, the including bundle last', async () => {
    const dir = tempTree({
      'root.yaml':
        'bundle: {name: root}\nincludes: [./a.yaml, ./b.yaml]\ntools:\n  - {module: t, config: {who: root}}\n',
      'a.yaml': 'bundle: {name: a}\ntools:\n  - {module: t, config: {who: a, a: 1}}\n  - {module: only-a}\n',
      'b.yaml': 'bundle: {name: b}\ntools:\n  - {module: t, config: {who: b, b: 1}}\n',
    });
    const bundle = await loadBundle(path.join(dir, 'root.yaml'));
    expect(bundle.name).toBe('root');
    expect(bundle.tools).toEqual([
      { module: 't', config: { who: 'root', a: 1, b: 1 } },
      { module: 'only-a' },
    ]);
  });

  it('a relative include is relative to the including file, not the current directory', async () => {
    const dir = tempTree({
      'nested/deep/root.yaml': 'includes: [../sibling/x.yaml]\n',
      'nested/sibling/x.yaml': 'tools: [{module: from-x}]\n',
    });
    const bundle = await loadBundle(path.join(dir, 'nested/deep/root.yaml'), {
      baseDir: tempTree(),
      roots: [dir],
    });
    expect(bundle.tools).toEqual([{ module: 'from-x' }]);
  });

  it('by name: the search folders (name/bundle.md, name.yaml, ...), then registered names', async () => {
    const search = tempTree({
      'alpha/bundle.md': '---\nbundle: {name: alpha}\ntools: [{module: from-alpha}]\n---\nAlpha.',
      'beta.yaml': 'bundle: {name: beta}\ntools: [{module: from-beta}]\n',
    });
    const other = tempTree({ 'gamma.yaml': 'tools: [{module: from-gamma}]\n' });
    const dir = tempTree({ 'root.yaml': 'includes: [alpha, beta, gamma]\n' });
    const bundle = await loadBundle(path.join(dir, 'root.yaml'), {
      searchPaths: [search],
      bundles: { gamma: path.join(other, 'gamma.yaml') },
    });
    expect(bundle.tools.map((t) => t.module)).toEqual(['from-alpha', 'from-beta', 'from-gamma']);
    expect(bundle.instruction).toBe('Alpha.');
    // The root bundle itself may be a name.
    expect((await loadBundle('beta', { searchPaths: [search] })).name).toBe('beta');
  });

  it('namespace:path finds p, p.yaml, p.yml, p.md and p/bundle.md under the namespace folder', async () => {
    const dir = tempTree({
      'bundle.md':
        '---\nbundle: {name: home}\nincludes:\n  - home:behaviors/one\n  - home:behaviors/two.yml\n  - home:providers/three\n  - home:kits/four\n---\n',
      'behaviors/one.yaml': 'tools: [{module: one}]\n',
      'behaviors/two.yml': 'tools: [{module: two}]\n',
      'providers/three.md': '---\nproviders: [{module: three}]\n---\n',
      'kits/four/bundle.md': '---\nhooks: [{module: four}]\n---\n',
    });
    const bundle = await loadBundle(dir);
    expect([...bundle.tools, ...bundle.providers, ...bundle.hooks].map((m) => m.module)).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
    expect(bundle.namespaces).toEqual({ home: dir });
  });

  it('namespace_root moves the namespace folder', async () => {
    const dir = tempTree({
      'bundle.yaml': 'bundle: {name: ns, namespace_root: src}\nincludes: [ns:b]\n',
      'src/b.yaml': 'tools: [{module: b}]\n',
    });
    expect((await loadBundle(dir)).tools).toEqual([{ module: 'b' }]);
  });

  it('a namespace not loaded yet is found by its name first (read, its includes not loaded)', async () => {
    const search = tempTree({
      'lib/bundle.yaml': 'bundle: {name: lib}\nincludes: [./not-there.yaml]\ntools: [{module: lib-own}]\n',
      'lib/behaviors/x.yaml': 'tools: [{module: lib-x}]\n',
    });
    const dir = tempTree({ 'root.yaml': 'includes: [lib:behaviors/x]\n' });
    const bundle = await loadBundle(path.join(dir, 'root.yaml'), { searchPaths: [search] });
    // Only the included behavior composes; the preloaded bundle only names the namespace.
    expect(bundle.tools).toEqual([{ module: 'lib-x' }]);
  });

  it('a missing path in a known namespace and an unknown namespace are errors, never skipped', async () => {
    const dir = tempTree({
      'bundle.yaml': 'bundle: {name: home}\nincludes: [home:behaviors/gone, nobody:x]\n',
    });
    const error = await failure(loadBundle(dir));
    expect(error).toBeInstanceOf(BundleDependencyError);
    expect(error.problems).toHaveLength(2);
    expect(error.message).toContain('2 includes failed');
    expect(error.message).toContain("'home:behaviors/gone' is not in the namespace 'home'");
    expect(error.message).toContain("The namespace 'nobody' of 'nobody:x' is unknown");
  });

  it('a missing file names the chain of includes', async () => {
    const dir = tempTree({
      'a.yaml': 'includes: [./b.yaml]\n',
      'b.yaml': 'includes: [./missing.yaml]\n',
    });
    const error = await failure(loadBundle(path.join(dir, 'a.yaml')));
    expect(error.message).toContain(
      `${path.join(dir, 'a.yaml')} -> ${path.join(dir, 'b.yaml')} includes './missing.yaml'`,
    );
    expect(error.message).toContain(`No bundle file ${path.join(dir, 'missing.yaml')}`);
  });

  it('an unknown name says where it looked', async () => {
    const search = tempTree();
    const error = await failure(loadBundle('nothing-here', { searchPaths: [search], baseDir: search }));
    expect(error).toBeInstanceOf(BundleNotFoundError);
    expect(error.message).toContain(`No bundle named 'nothing-here' (searched: ${search}`);
  });

  it('a mistyped name suggests the closest bundle of the search folders and the registered names', async () => {
    const search = tempTree({
      'review-team/bundle.yaml': 'bundle:\n  name: review-team\n',
      'solo.md': '---\nbundle:\n  name: solo\n---\n',
    });
    const options = {
      searchPaths: [search],
      baseDir: search,
      bundles: { foundation: 'git+https://example.invalid/f@main' },
    };
    const folder = await failure(loadBundle('reveiw-team', options));
    expect(folder.message).toMatch(/ Did you mean 'review-team'\?$/);
    const file = await failure(loadBundle('sol', options));
    expect(file.message).toMatch(/ Did you mean 'solo'\?$/);
    const registered = await failure(loadBundle('foundatoin', options));
    expect(registered.message).toMatch(/ Did you mean 'foundation'\?$/);
    const far = await failure(loadBundle('nothing-like-it', options));
    expect(far.message).not.toContain('Did you mean');
  });

  it('a cycle is an error naming the chain; cycles: skip drops it with a warning', async () => {
    const dir = tempTree({
      'a.yaml': 'bundle: {name: a}\nincludes: [./b.yaml]\ntools: [{module: a}]\n',
      'b.yaml': 'bundle: {name: b}\nincludes: [./a.yaml]\ntools: [{module: b}]\n',
    });
    const a = path.join(dir, 'a.yaml');
    const b = path.join(dir, 'b.yaml');
    const error = await failure(loadBundle(a));
    expect(error.message).toContain(`Circular include: ${a} -> ${b} -> ${a}`);
    const skipped = await loadBundle(a, { cycles: 'skip' });
    expect(skipped.tools.map((t) => t.module)).toEqual(['b', 'a']);
    expect(skipped.warnings.filter((w) => w.startsWith('Circular include'))).toHaveLength(1);
  });

  it('a diamond loads the shared bundle once', async () => {
    const dir = tempTree({
      'top.yaml': 'includes: [./left.yaml, ./right.yaml]\n',
      'left.yaml': 'includes: [./base.yaml]\n',
      'right.yaml': 'includes: [./base.yaml]\n',
      'base.yaml': 'tools: [{module: base, config: {list: [1]}}]\n',
    });
    const bundle = await loadBundle(path.join(dir, 'top.yaml'));
    expect(bundle.files.filter((f) => f.endsWith('base.yaml'))).toHaveLength(1);
    expect(bundle.tools).toEqual([{ module: 'base', config: { list: [1] } }]);
  });

  it('file:// URLs with #subdirectory=', async () => {
    const repo = tempTree({ 'behaviors/x.yaml': 'tools: [{module: via-file-url}]\n' });
    const dir = tempTree({
      'root.yaml': `includes: ['${pathToFileURL(repo).href}#subdirectory=behaviors/x.yaml']\n`,
    });
    const bundle = await loadBundle(path.join(dir, 'root.yaml'), { roots: [repo] });
    expect(bundle.tools).toEqual([{ module: 'via-file-url' }]);
  });

  it('a git+https include with no resolver names the bundle, the URL and how to supply it', async () => {
    const dir = tempTree({
      'root.yaml': 'includes:\n  - bundle: git+https://example.invalid/org/repo@main#subdirectory=b.yaml\n',
    });
    const error = await failure(loadBundle(path.join(dir, 'root.yaml')));
    expect(error.message).toContain(
      'Cannot fetch git+https://example.invalid/org/repo@main#subdirectory=b.yaml',
    );
    expect(error.message).toContain(`${path.join(dir, 'root.yaml')} includes 'git+https://example.invalid/`);
    expect(error.message).toContain('no resolver takes git+https:// sources');
    expect(error.message).toContain('--source <url>=<folder>');
  });

  it('sources map a URL to a local copy (the fragment kept)', async () => {
    const copy = tempTree({
      'bundle.yaml': 'bundle: {name: remote}\n',
      'behaviors/b.yaml': 'tools: [{module: mapped}]\n',
    });
    const dir = tempTree({
      'root.yaml': 'includes:\n  - git+https://example.invalid/org/repo@main#subdirectory=behaviors/b.yaml\n',
    });
    const bundle = await loadBundle(path.join(dir, 'root.yaml'), {
      sources: { 'git+https://example.invalid/org/repo': copy },
    });
    expect(bundle.tools).toEqual([{ module: 'mapped' }]);
    // The copy's root bundle names its folder.
    expect(bundle.namespaces.remote).toBe(copy);
  });
});

describe.skipIf(skipUnless(GIT, 'git on PATH'))(
  'git sources (a local repository made by the test; no network)',
  () => {
    it('clones git+file:// at a ref into the cache, finds the subdirectory, maps the root namespace', async () => {
      const repo = gitRepo({
        'bundle.md': '---\nbundle: {name: upstream}\n---\nUpstream root.',
        'behaviors/b.yaml':
          'bundle: {name: behavior-b}\nincludes: [upstream:behaviors/c]\ntools: [{module: b}]\n',
        'behaviors/c.yaml': 'tools: [{module: c}]\n',
      });
      const cacheDir = tempTree();
      const url = `git+${pathToFileURL(repo).href}@main#subdirectory=behaviors/b.yaml`;
      const dir = tempTree({ 'root.yaml': `includes: ['${url}']\n` });
      const bundle = await loadBundle(path.join(dir, 'root.yaml'), {
        resolvers: [gitResolver({ cacheDir })],
      });
      expect(bundle.tools.map((t) => t.module)).toEqual(['c', 'b']);
      const [checkout] = fs.readdirSync(cacheDir).filter((n) => !n.startsWith('.'));
      expect(checkout).toMatch(/@main-[0-9a-f]{12}$/);
      expect(bundle.namespaces.upstream).toBe(path.join(cacheDir, checkout!));
      // A second load uses the cache: it works with the repository gone.
      fs.rmSync(repo, { recursive: true });
      const again = await loadBundle(path.join(dir, 'root.yaml'), { resolvers: [gitResolver({ cacheDir })] });
      expect(again.tools.map((t) => t.module)).toEqual(['c', 'b']);
    });

    it('a clone that fails names the URL, the ref and the command that fetches it by hand', async () => {
      const repo = gitRepo({ 'bundle.yaml': 'bundle: {name: r}\n' });
      const url = `git+${pathToFileURL(repo).href}@no-such-branch`;
      const error = await failure(loadBundle(url, { resolvers: [gitResolver({ cacheDir: tempTree() })] }));
      expect(error.message).toContain(`Cannot fetch ${url}`);
      expect(error.message).toContain("at 'no-such-branch' failed");
      expect(error.message).toContain('git clone --branch no-such-branch');
    });
  },
);

describe.skipIf(skipUnless(GIT, 'git on PATH'))('git sources offline', () => {
  it('offline: a cached checkout is used, a missing one is an error with the clone command; git is never run', async () => {
    const repo = gitRepo({ 'bundle.yaml': 'bundle: {name: r}\ntools: [{module: cached}]\n' });
    const cacheDir = tempTree();
    const url = `git+${pathToFileURL(repo).href}@main`;
    const offline = await failure(loadBundle(url, { resolvers: [gitResolver({ cacheDir, offline: true })] }));
    expect(offline.message).toContain(`Cannot load the bundle '${url}'`);
    expect(offline.message).toContain('offline, and');
    expect(offline.message).toContain(`git clone --branch main ${pathToFileURL(repo).href}`);
    expect(fs.readdirSync(cacheDir)).toEqual([]);
    await loadBundle(url, { resolvers: [gitResolver({ cacheDir })] });
    const cached = await loadBundle(url, {
      resolvers: [gitResolver({ cacheDir, offline: true, git: '/nonexistent/git' })],
    });
    expect(cached.tools).toEqual([{ module: 'cached' }]);
  });
});
