import type { Message } from '@amplifier/core';
import { checkData } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import {
  missingToolResultText,
  repairToolSequence,
  TOOL_SEQUENCE_INTERRUPTED_TEXT,
} from './tool-sequence.js';

const user = (content: string): Message => ({ role: 'user', content });
const call = (...ids: string[]): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: ids.map((id) => ({ id, tool: `tool_${id}`, arguments: {} })),
});
const result = (id: string, content = 'ok'): Message => ({ role: 'tool', tool_call_id: id, content });

describe('repairToolSequence', () => {
  it('returns the same array and no repairs when every call has a result', () => {
    const messages = [
      user('hi'),
      call('a', 'b'),
      result('a'),
      result('b'),
      { role: 'assistant', content: 'done' },
    ];
    const repaired = repairToolSequence(messages as Message[]);
    expect(repaired.messages).toBe(messages);
    expect(repaired.repairs).toEqual([]);
    expect(repaired.synthetic_assistant_count).toBe(0);
  });

  it('adds a synthetic tool result after the existing results of the call, naming the tool and id', () => {
    const messages = [user('hi'), call('a', 'b'), result('a')];
    const frozen = structuredClone(messages);
    const repaired = repairToolSequence(messages);
    expect(messages).toEqual(frozen); // input untouched
    expect(repaired.repairs).toEqual([{ tool_call_id: 'b', tool_name: 'tool_b' }]);
    expect(repaired.messages.map((m) => [m.role, m.tool_call_id])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
      ['tool', 'a'],
      ['tool', 'b'],
    ]);
    const synthetic = repaired.messages[3]!;
    expect(synthetic.content).toBe(missingToolResultText('tool_b', 'b'));
    expect(synthetic.content).toContain('[SYSTEM ERROR: Tool result missing from conversation history]');
    expect(synthetic.content).toContain('Tool: tool_b\nCall ID: b');
    expect(synthetic.name).toBe('tool_b');
    for (const m of repaired.messages) expect(checkData('message', m)).toEqual([]);
    expect(repaired.synthetic_assistant_count).toBe(0);
  });

  it('closes an interrupted round with a synthetic assistant message before a real user message', () => {
    const repaired = repairToolSequence([user('hi'), call('a'), user('what happened?')]);
    expect(repaired.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(repaired.messages[3]!.content).toBe(TOOL_SEQUENCE_INTERRUPTED_TEXT);
    expect(repaired.synthetic_assistant_count).toBe(1);
  });

  it('adds no synthetic assistant before a <system-reminder> user message', () => {
    const repaired = repairToolSequence([call('a'), user('<system-reminder>limit</system-reminder>')]);
    expect(repaired.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(repaired.synthetic_assistant_count).toBe(0);
  });

  it('finds calls given as tool_call content blocks and results given as tool_result blocks', () => {
    const assistant: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool_call', id: 'x', name: 'read_file', input: {} },
        { type: 'tool_call', id: 'y', name: 'grep', input: {} },
      ],
      tool_calls: [{ id: 'x', tool: 'read_file', arguments: {} }],
    };
    const answer: Message = {
      role: 'user',
      content: [{ type: 'tool_result', tool_call_id: 'x', output: 'ok' }],
    };
    const repaired = repairToolSequence([assistant, answer]);
    expect(repaired.repairs).toEqual([{ tool_call_id: 'y', tool_name: 'grep' }]);
  });

  it('repairs several assistant messages and each call id once', () => {
    const repaired = repairToolSequence([call('a'), user('next'), call('a', 'c'), result('c')]);
    expect(repaired.repairs.map((r) => r.tool_call_id)).toEqual(['a']);
    expect(repaired.messages.map((m) => m.role)).toEqual([
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
    ]);
  });
});
