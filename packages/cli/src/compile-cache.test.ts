import module from 'node:module';
import { describe, expect, it } from 'vitest';
import { enableCompileCache } from './compile-cache.js';

describe('enableCompileCache', () => {
  it('calls module.enableCompileCache once when this Node has it (22.1+)', () => {
    const calls: unknown[][] = [];
    expect(enableCompileCache({ enableCompileCache: (...args: unknown[]) => calls.push(args) })).toBe(true);
    expect(calls).toEqual([[]]);
  });

  it('does nothing on a Node without it (Node 20), and never throws', () => {
    expect(enableCompileCache({})).toBe(false);
    expect(
      enableCompileCache({
        enableCompileCache: () => {
          throw new Error('no cache dir');
        },
      }),
    ).toBe(false);
  });

  it('matches what the running Node offers', () => {
    const api = module as { enableCompileCache?: unknown };
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    expect(typeof api.enableCompileCache === 'function').toBe(major > 22 || (major === 22 && minor >= 1));
  });
});
