import { describe, expect, it } from 'vitest';
import { hashedToolName, MAX_TOOL_NAME, mountedToolName, preferredToolName } from './names.js';

describe('tool names', () => {
  it('uses mcp_<server>_<tool>, sanitized, with the Claude Code alias', () => {
    expect(preferredToolName('git hub', 'repo.search')).toEqual({
      name: 'mcp_git_hub_repo_search',
      alias: 'mcp__git_hub__repo_search',
    });
  });

  it('hashes on overflow and on clashes, never replacing a taken name', () => {
    const long = 'x'.repeat(100);
    const name = mountedToolName('srv', long, () => false)!;
    expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
    expect(name).toMatch(/^mcp_srv_x+_[0-9a-f]{8}$/);
    const taken = new Set(['mcp_a_b_c']);
    const first = mountedToolName('a_b', 'c', (n) => taken.has(n));
    expect(first).toBe(hashedToolName('a_b', 'c'));
    expect(hashedToolName('a_b', 'c')).not.toBe(hashedToolName('a', 'b_c'));
    taken.add(first!);
    expect(mountedToolName('a_b', 'c', (n) => taken.has(n))).toBeUndefined();
  });
});
