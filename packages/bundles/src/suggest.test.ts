import { describe, expect, it } from 'vitest';
import { closestName } from './suggest.js';

const MODULES = [
  'tool-filesystem',
  'tool-bash',
  'tool-web',
  'provider-openai',
  'provider-anthropic',
  'loop-basic',
];

describe('closestName', () => {
  it('finds the name a typo meant: a dropped, added, replaced or swapped letter, any case', () => {
    expect(closestName('tool-filesytem', MODULES)).toBe('tool-filesystem');
    expect(closestName('tool-bassh', MODULES)).toBe('tool-bash');
    expect(closestName('provider-opanai', MODULES)).toBe('provider-openai');
    expect(closestName('loop-baisc', MODULES)).toBe('loop-basic');
    expect(closestName('Tool-Web', MODULES)).toBe('tool-web');
    expect(closestName('foundatoin', ['foundation', 'anchors', 'default'])).toBe('foundation');
  });

  it('suggests nothing for a name too far from every candidate, for an exact one, or without candidates', () => {
    expect(closestName('provider-gemini', MODULES)).toBeUndefined();
    expect(closestName('xyz', MODULES)).toBeUndefined();
    expect(closestName('tool-web', MODULES)).toBeUndefined();
    expect(closestName('tool-web', [])).toBeUndefined();
  });

  it('short names allow one edit only', () => {
    expect(closestName('bsah', ['bash'])).toBe('bash');
    expect(closestName('bxyh', ['bash'])).toBeUndefined();
  });

  it('picks the closest of several near names', () => {
    expect(closestName('tool-webb', ['tool-bash', 'tool-web'])).toBe('tool-web');
  });
});
