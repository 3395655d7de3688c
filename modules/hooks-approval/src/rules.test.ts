import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, parseConfig, type RuleConfig } from './config.js';
import { compileRules, evaluate, valueAt } from './rules.js';

const SHELL = new Set(['bash']);

/** Evaluate one call against `rules` (no defaults) and `default_action`. */
function decide(
  rules: RuleConfig[],
  tool: string,
  input: Record<string, unknown>,
  defaultAction: 'allow' | 'deny' | 'ask' = 'ask',
) {
  const compiled = compileRules(parseConfig({ rules }).rules, [], SHELL);
  return evaluate(compiled, tool, input, SHELL.has(tool), defaultAction);
}

describe('rule kinds', () => {
  it('a tool name matches that tool only', () => {
    const rules: RuleConfig[] = [{ tool: 'read_file', action: 'allow' }];
    expect(decide(rules, 'read_file', {}).action).toBe('allow');
    expect(decide(rules, 'read_files', {}).action).toBe('ask');
    expect(decide(rules, 'write_file', {}).action).toBe('ask');
  });

  it('a tool glob matches every tool it names; a list matches any of its entries', () => {
    const rules: RuleConfig[] = [
      { tool: 'mcp_*', action: 'deny' },
      { tool: ['glob', 'grep'], action: 'allow' },
    ];
    expect(decide(rules, 'mcp_github_push', {}).action).toBe('deny');
    expect(decide(rules, 'grep', {}).action).toBe('allow');
    expect(decide(rules, 'glob', {}).action).toBe('allow');
    expect(decide(rules, 'mcp', {}).action).toBe('ask');
  });

  it('a `when` glob matches an argument at a dotted path (picomatch globs)', () => {
    const rules: RuleConfig[] = [
      { tool: 'write_file', when: { file_path: 'src/**' }, action: 'allow' },
      { tool: 'copy', when: { 'options.target': '/tmp/*.txt' }, action: 'allow' },
    ];
    expect(decide(rules, 'write_file', { file_path: 'src/a/b.ts' }).action).toBe('allow');
    expect(decide(rules, 'write_file', { file_path: 'src/.env' }).action).toBe('allow');
    expect(decide(rules, 'write_file', { file_path: 'lib/a.ts' }).action).toBe('ask');
    expect(decide(rules, 'write_file', {}).action).toBe('ask');
    expect(decide(rules, 'copy', { options: { target: '/tmp/a.txt' } }).action).toBe('allow');
    expect(decide(rules, 'copy', { options: { target: '/tmp/x/a.txt' } }).action).toBe('ask');
    expect(decide(rules, 'copy', { options: '/tmp/a.txt' }).action).toBe('ask');
  });

  it('a `when` regex (`/.../flags`) is a search with its flags', () => {
    const rules: RuleConfig[] = [
      { tool: 'write_file', when: { file_path: '/\\.env(\\..*)?$/i' }, action: 'deny' },
    ];
    expect(decide(rules, 'write_file', { file_path: 'app/.ENV' }).action).toBe('deny');
    expect(decide(rules, 'write_file', { file_path: '.env.local' }).action).toBe('deny');
    expect(decide(rules, 'write_file', { file_path: 'env.ts' }).action).toBe('ask');
  });

  it('numbers and booleans are matched as text; objects and missing values never match', () => {
    const rules: RuleConfig[] = [{ tool: 'bash', when: { run_in_background: 'true' }, action: 'deny' }];
    expect(decide(rules, 'bash', { command: 'ls', run_in_background: true }).action).toBe('deny');
    expect(decide(rules, 'bash', { command: 'ls', run_in_background: { x: true } }).action).toBe('ask');
    expect(valueAt({ a: [{ b: 1 }] }, ['a', '0', 'b'])).toBe(1);
    expect(valueAt({}, ['constructor'])).toBeUndefined();
  });

  it('every `when` condition must match', () => {
    const rules: RuleConfig[] = [
      { tool: 'edit_file', when: { file_path: '*.md', old_string: 'TODO*' }, action: 'allow' },
    ];
    expect(decide(rules, 'edit_file', { file_path: 'a.md', old_string: 'TODO: x' }).action).toBe('allow');
    expect(decide(rules, 'edit_file', { file_path: 'a.md', old_string: 'x' }).action).toBe('ask');
  });

  it('allow, deny and ask are returned with the rule that matched (index and rule)', () => {
    const rules: RuleConfig[] = [
      { tool: 'a', action: 'allow', reason: 'fine' },
      { tool: 'b', action: 'deny' },
      { tool: 'c', action: 'ask' },
    ];
    expect(decide(rules, 'a', {})).toEqual({
      action: 'allow',
      rule: { index: 0, source: 'config', tool: 'a', action: 'allow', reason: 'fine' },
    });
    expect(decide(rules, 'b', {}).rule).toMatchObject({ index: 1, action: 'deny' });
    expect(decide(rules, 'c', {}).rule).toMatchObject({ index: 2, action: 'ask' });
  });

  it('first match wins', () => {
    const rules: RuleConfig[] = [
      { tool: 'bash', when: { command: 'git status*' }, action: 'allow' },
      { tool: 'bash', when: { command: 'git*' }, action: 'deny' },
      { tool: 'bash', action: 'allow' },
    ];
    expect(decide(rules, 'bash', { command: 'git status -s' }).rule?.index).toBe(0);
    expect(decide(rules, 'bash', { command: 'git push' }).rule?.index).toBe(1);
    expect(decide(rules, 'bash', { command: 'make' }).rule?.index).toBe(2);
  });

  it('default_action decides when no rule matches (rule: null)', () => {
    for (const action of ['allow', 'deny', 'ask'] as const) {
      expect(decide([], 'anything', {}, action)).toEqual({ action, rule: null });
    }
  });

  it('a shell command glob is the reference wildcard: `*` spans anything, any case, exact without `*`', () => {
    const rules: RuleConfig[] = [
      { tool: 'bash', when: { command: 'pwd' }, action: 'allow' },
      { tool: 'bash', when: { command: 'cat /etc/*' }, action: 'allow' },
    ];
    expect(decide(rules, 'bash', { command: 'PWD' }).action).toBe('allow');
    expect(decide(rules, 'bash', { command: 'pwd -P' }).action).toBe('ask');
    expect(decide(rules, 'bash', { command: 'cat /etc/ssh/sshd_config' }).action).toBe('allow');
  });

  it('a shell tool whose command is not a string never matches a command condition', () => {
    const rules: RuleConfig[] = [{ tool: 'bash', when: { command: '*' }, action: 'allow' }];
    expect(decide(rules, 'bash', { command: ['ls'] }).action).toBe('ask');
  });

  it('the default rules follow the reference classes', () => {
    const compiled = compileRules([], DEFAULT_RULES, SHELL);
    const action = (tool: string, input: Record<string, unknown> = {}) =>
      evaluate(compiled, tool, input, SHELL.has(tool), 'ask').action;
    for (const tool of ['read_file', 'glob', 'grep', 'web_fetch', 'web_search', 'bash_output']) {
      expect(action(tool)).toBe('allow');
    }
    for (const tool of ['write_file', 'edit_file', 'bash_kill']) expect(action(tool)).toBe('ask');
    expect(action('bash', { command: 'ls -la' })).toBe('allow');
    expect(action('bash', { command: 'pwd' })).toBe('allow');
    expect(action('bash', { command: 'echo hello' })).toBe('allow');
    expect(action('bash', { command: 'rm x' })).toBe('ask');
    expect(action('some_new_tool')).toBe('ask');
  });
});

describe('config', () => {
  it('fills the defaults', () => {
    const config = parseConfig({}, { AMPLIFIER_HOME: '/srv/amp' });
    expect(config).toMatchObject({
      rules: [],
      default_rules: true,
      default_action: 'ask',
      approval_timeout: 300,
      approval_default: 'deny',
      shell_tools: ['bash'],
      audit: true,
      audit_file: '/srv/amp/audit/approvals.jsonl',
      priority: -10,
    });
  });

  it.each([
    [{ rules: [{ tool: 'x' }] }, 'rules[0].action is required'],
    [{ rules: [{ tool: 'x', action: 'maybe' }] }, 'action'],
    [{ rules: [{ tool: 'x', action: 'allow', when: { path: 3 } }] }, 'when'],
    [{ default_action: 'perhaps' }, 'default_action'],
    [{ approval_timeout: 0 }, 'approval_timeout'],
    [{ approval_default: 'ask' }, 'approval_default'],
    [{ rule: [{ tool: 'x', action: 'deny' }] }, "'rule' is refused: it looks like a misspelt 'rules'"],
    [{ rules: [{ tool: 'x', acton: 'deny', action: 'ask' }] }, "'rules[0].acton' is refused"],
  ])('rejects %j naming what to change', (raw, fragment) => {
    expect(() => parseConfig(raw as Record<string, unknown>)).toThrow(fragment);
  });

  it('a bad regex fails with the rule position', () => {
    const { rules } = parseConfig({ rules: [{ tool: 'x', when: { a: '/(/' }, action: 'deny' }] });
    expect(() => compileRules(rules, [], SHELL)).toThrow('rules[0].when.a');
  });
});
