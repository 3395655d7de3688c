import { describe, expect, it } from 'vitest';
import { BundleDependencyError } from './errors.js';
import { gitCacheKey, gitResolver, parseGitUri } from './git.js';
import { mapSource } from './sources.js';

describe('parseGitUri', () => {
  it('the ref defaults to main; a ref may contain /; #subdirectory= is the path inside', () => {
    expect(parseGitUri('git+https://github.com/org/repo')).toEqual({
      url: 'https://github.com/org/repo',
      ref: 'main',
      subdirectory: undefined,
    });
    expect(parseGitUri('git+https://github.com/org/repo@release/2.0#subdirectory=behaviors/x.yaml')).toEqual({
      url: 'https://github.com/org/repo',
      ref: 'release/2.0',
      subdirectory: 'behaviors/x.yaml',
    });
  });

  it('the user of an ssh URL is not a ref', () => {
    expect(parseGitUri('git+ssh://git@github.com/org/repo@v1')).toEqual({
      url: 'ssh://git@github.com/org/repo',
      ref: 'v1',
      subdirectory: undefined,
    });
  });

  it('not a git URL: a BundleDependencyError', () => {
    expect(() => parseGitUri('https://github.com/org/repo')).toThrow(BundleDependencyError);
    expect(() => parseGitUri('git+nothing')).toThrow(/not a git URL/);
  });

  it('cache keys are readable, distinct per repository and ref', () => {
    const a = gitCacheKey({ url: 'https://github.com/org/repo', ref: 'main' });
    expect(a).toMatch(/^github\.com-org-repo@main-[0-9a-f]{12}$/);
    expect(gitCacheKey({ url: 'https://github.com/org/repo', ref: 'dev' })).not.toBe(a);
  });

  it('a subdirectory that leaves the checkout is refused', async () => {
    const resolver = gitResolver({ cacheDir: '/nonexistent', offline: true });
    expect(resolver.canResolve('git+https://h/o/r')).toBe(true);
    expect(resolver.canResolve('https://h/o/r')).toBe(false);
    await expect(resolver.resolve('git+https://h/o/r#subdirectory=../../etc')).rejects.toThrow(
      BundleDependencyError,
    );
  });
});

describe('mapSource', () => {
  it('a prefix maps a whole URL, its @ref and fragment, never half a name', () => {
    const sources = { 'git+https://github.com/org/repo': '/src/repo' };
    expect(mapSource('git+https://github.com/org/repo@main#subdirectory=b.yaml', sources)).toBe(
      '/src/repo#subdirectory=b.yaml',
    );
    expect(mapSource('git+https://github.com/org/repo', sources)).toBe('/src/repo');
    expect(mapSource('git+https://github.com/org/repo-other@main', sources)).toBe(
      'git+https://github.com/org/repo-other@main',
    );
    expect(mapSource('foundation:behaviors/x', { foundation: '/f' })).toBe('foundation:behaviors/x');
  });
});
