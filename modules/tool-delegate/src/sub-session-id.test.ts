import { describe, expect, it } from 'vitest';
import { agentSlug, SUB_SESSION_ID, subSessionId } from './sub-session-id.js';

describe('subSessionId', () => {
  it('roots get 16 zeros as parent span; children chain their span', () => {
    const root = subSessionId('4f1c1a5e-1b2c-4d3e-8f9a-0b1c2d3e4f5a', 'foundation:Explorer');
    expect(root).toMatch(SUB_SESSION_ID);
    expect(root).toMatch(/^0{16}-[0-9a-f]{16}_foundation-explorer$/);
    const child = subSessionId(root, 'self');
    expect(child.slice(0, 16)).toBe(root.slice(17, 33));
    expect(child).toMatch(SUB_SESSION_ID);
    expect(subSessionId(root, 'self')).not.toBe(child);
  });

  it('agent names become lower-case slugs', () => {
    expect(agentSlug('Code Reviewer!!')).toBe('code-reviewer');
    expect(agentSlug('***')).toBe('agent');
  });
});
