import type { Message } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { buildInheritedContext, withInheritedContext } from './context-inheritance.js';

const conversation: Message[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'turn one' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hmm' },
      { type: 'text', text: 'answer one' },
    ],
  },
  { role: 'user', content: 'turn two' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'b1', tool: 'bash', arguments: { command: 'ls' } }] },
  { role: 'tool', tool_call_id: 'b1', content: 'README.md' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'd1', tool: 'delegate', arguments: { agent: 'a' } }] },
  { role: 'tool', tool_call_id: 'd1', content: '{"response":"agent says hi"}' },
  { role: 'assistant', content: 'answer two' },
  { role: 'user', content: 'turn three' },
];

describe('buildInheritedContext', () => {
  it('conversation scope: user and assistant text only (no system, tool calls, tool results, thinking)', () => {
    expect(buildInheritedContext(conversation, { depth: 'all', turns: 5, scope: 'conversation' })).toBe(
      'USER: turn one\n\nASSISTANT: answer one\n\nUSER: turn two\n\nASSISTANT: answer two\n\nUSER: turn three',
    );
  });

  it('agents scope keeps delegate results; full keeps every tool result', () => {
    const agents = buildInheritedContext(conversation, { depth: 'all', turns: 5, scope: 'agents' });
    expect(agents).toContain('[Agent Result from delegate]: {"response":"agent says hi"}');
    expect(agents).not.toContain('README.md');
    const full = buildInheritedContext(conversation, { depth: 'all', turns: 5, scope: 'full' });
    expect(full).toContain('[Tool Result from bash]: README.md');
    expect(full).toContain('[Tool Result from delegate]: {"response":"agent says hi"}');
  });

  it('recent keeps everything from the N-th last user message on; none inherits nothing', () => {
    expect(buildInheritedContext(conversation, { depth: 'recent', turns: 2, scope: 'conversation' })).toBe(
      'USER: turn two\n\nASSISTANT: answer two\n\nUSER: turn three',
    );
    expect(
      buildInheritedContext(conversation, { depth: 'recent', turns: 9, scope: 'conversation' }),
    ).toContain('USER: turn one');
    expect(buildInheritedContext(conversation, { depth: 'none', turns: 5, scope: 'full' })).toBeUndefined();
    expect(buildInheritedContext([], { depth: 'all', turns: 5, scope: 'full' })).toBeUndefined();
  });

  it('cuts messages at 2000 characters and tool results at 4000', () => {
    const long: Message[] = [
      { role: 'user', content: 'u'.repeat(2500) },
      { role: 'assistant', content: '', tool_calls: [{ id: 't', tool: 'grep', arguments: {} }] },
      { role: 'tool', tool_call_id: 't', content: 'r'.repeat(5000) },
    ];
    const text = buildInheritedContext(long, { depth: 'all', turns: 5, scope: 'full' })!;
    expect(text).toContain(`USER: ${'u'.repeat(2000)}... [truncated]\n`);
    expect(text).not.toContain('u'.repeat(2001));
    expect(text.endsWith(`[Tool Result from grep]: ${'r'.repeat(4000)}... [truncated]`)).toBe(true);
  });
});

describe('withInheritedContext', () => {
  it('wraps the context in the reference markers before the task', () => {
    expect(withInheritedContext('do it', 'USER: hi')).toBe(
      '[PARENT CONVERSATION CONTEXT]\nThe following is conversation history from the parent session, for context:\n\nUSER: hi\n\n[END PARENT CONTEXT]\n\n[YOUR TASK]\ndo it',
    );
    expect(withInheritedContext('do it', undefined)).toBe('do it');
  });
});
