import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { eventMatcher, needsPicomatch } from './event-match.js';

const byPicomatch = (patterns: string[]) => picomatch(patterns, { dot: true, nobrace: false });

describe('exclude_events matching', () => {
  it('the default pattern and plain names need no picomatch', () => {
    expect(needsPicomatch('llm:stream_*delta')).toBe(process.platform === 'win32');
    expect(needsPicomatch('tool:pre')).toBe(process.platform === 'win32');
    for (const p of ['tool:pr?', 'llm:**', '*', '*a', '.a*', '[ab]', '{a,b}', '!x', 'a\\*', '+(a)']) {
      expect(needsPicomatch(p), p).toBe(true);
    }
  });

  it('matches exactly as picomatch does: every simple pattern up to 4 characters against every name up to 4', () => {
    const strings = (alphabet: readonly string[], max: number): string[] => {
      let level = [''];
      const all = [''];
      for (let n = 0; n < max; n++) {
        level = level.flatMap((s) => alphabet.map((c) => s + c));
        all.push(...level);
      }
      return all;
    };
    const patterns = strings(['a', '1', ':', '.', '-', '_', '*'], 4).filter(
      (p) => p !== '' && !needsPicomatch(p),
    );
    const names = strings(['a', 'b', '1', ':', '.', '-', '/'], 4);
    expect(patterns.length).toBeGreaterThan(500);
    const differences: string[] = [];
    for (const pattern of patterns) {
      const mine = eventMatcher([pattern]);
      const theirs = byPicomatch([pattern]);
      for (const name of names) if (mine(name) !== theirs(name)) differences.push(`${pattern} ${name}`);
    }
    expect(differences).toEqual([]);
    const several = ['a*', 'b*.a', 'llm:stream_*delta', 'a:*-'];
    const mine = eventMatcher(several);
    const theirs = byPicomatch(several);
    for (const name of [...names, 'llm:stream_block_delta', 'llm:stream_delta', 'llm:stream/delta']) {
      expect(mine(name), JSON.stringify(name)).toBe(theirs(name));
    }
  });

  it('hands other patterns to picomatch (? and [] work)', () => {
    const match = eventMatcher(['tool:pr?', 'provider:[er]*']);
    expect(match('tool:pre')).toBe(true);
    expect(match('tool:post')).toBe(false);
    expect(match('provider:error')).toBe(true);
    expect(match('provider:request')).toBe(true);
    expect(match('provider:response')).toBe(true);
    expect(match('provider:x')).toBe(false);
    expect(eventMatcher([])('anything')).toBe(false);
  });
});
