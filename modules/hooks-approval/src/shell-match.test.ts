// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, not templates
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, type RuleConfig } from './config.js';
import { compileRules, evaluate } from './rules.js';
import { commandPrefixes, prefixesCover, shellView, writesFile } from './shell-match.js';

const SHELL = new Set(['bash']);

/** The action for a bash command under `rules` followed by the default rules. */
function action(command: string, rules: RuleConfig[] = []): string {
  const compiled = compileRules(rules, DEFAULT_RULES, SHELL);
  return evaluate(compiled, 'bash', { command }, true, 'ask').action;
}

const DENY_RM: RuleConfig[] = [{ tool: 'bash', when: { command: 'rm*' }, action: 'deny' }];

/**
 * Command lines that hide `rm -rf x` next to a harmless command. None may be
 * auto-allowed by the harmless-command rules (`ls*`, `pwd`, `echo*`), and a
 * `deny rm*` rule must see the `rm` in every one of them.
 */
const HIDDEN_RM: [kind: string, command: string][] = [
  ['compound &&', 'ls && rm -rf x'],
  ['compound ;', 'ls; rm -rf x'],
  ['compound ||', 'ls || rm -rf x'],
  ['background &', 'ls & rm -rf x'],
  ['pipe |', 'ls | rm -rf x'],
  ['pipe |&', 'ls |& rm -rf x'],
  ['newline', 'ls\nrm -rf x'],
  ['CRLF newline', 'ls\r\nrm -rf x'],
  ['line continuation', 'echo a \\\n; rm -rf x'],
  ['command substitution $()', 'echo $(rm -rf x)'],
  ['backticks', 'echo `rm -rf x`'],
  ['substitution in double quotes', 'echo "$(rm -rf x)"'],
  ['backticks in double quotes', 'echo "`rm -rf x`"'],
  ['nested substitution', 'echo $(echo $(rm -rf x))'],
  ['substitution in a parameter default', 'echo ${v:-$(rm -rf x)}'],
  ['process substitution', 'ls <(rm -rf x)'],
  ['subshell', 'ls && (cd /; rm -rf x)'],
  ['group', 'echo start; { rm -rf x; }'],
  ['if body', 'if ls; then rm -rf x; fi'],
  ['while body', 'while pwd; do rm -rf x; done'],
  ['$IFS as a space', 'echo ok;rm${IFS}-rf${IFS}x'],
  ['$IFS unbraced', 'echo ok;rm$IFS-rf$IFS/x'],
  ["quoting e''cho / r''m", "e''cho hi && r''m -rf x"],
  ['quoting "r""m"', 'echo hi; "r""m" -rf x'],
  ['backslash \\rm', 'echo hi; \\rm -rf x'],
  ["ANSI-C $'\\x72m'", "echo hi; $'\\x72m' -rf x"],
  ['absolute path /bin/rm', 'echo hi; /bin/rm -rf x'],
  ['absolute path /usr/bin/rm', 'ls && /usr/bin/rm -rf x'],
  ['wrapper env', 'echo hi; env rm -rf x'],
  ['wrapper env with assignments', 'ls; env -i A=1 rm -rf x'],
  ['wrapper command', 'echo hi; command rm -rf x'],
  ['wrapper xargs', 'echo x | xargs rm -rf'],
  ['wrapper find -exec', 'ls; find . -exec rm -rf {} \\;'],
  ['wrapper sudo', 'echo hi && sudo rm -rf x'],
  ['wrapper timeout', 'echo hi && timeout 5 rm -rf x'],
  ['wrapper nohup', 'echo hi && nohup rm -rf x'],
  ['sh -c', "echo hi; sh -c 'rm -rf x'"],
  ['bash -c', 'echo hi; bash -c "rm -rf x"'],
  ['bash -lc with a harmless first command', "echo hi && bash -lc 'echo; rm -rf x'"],
  ['eval', 'echo hi; eval "rm -rf x"'],
  ['here-document to bash', 'bash <<EOF\nrm -rf x\nEOF'],
  ['here-string to sh', 'sh <<< "rm -rf x"'],
  ['keyword-led', 'echo a; ! rm -rf x'],
];

/** Lines no harmless-command rule may allow (nothing names `rm`, or it cannot be seen). */
const NOT_HARMLESS: [kind: string, command: string][] = [
  ['a program named ls elsewhere', '/tmp/evil/ls -la'],
  ['a relative program named ls', './ls'],
  ['an environment assignment', 'LD_PRELOAD=/tmp/x.so ls'],
  ['a redirection that writes a file', 'echo pwned > ~/.bashrc'],
  ['an appending redirection', 'echo x >> /etc/hosts'],
  ['stdout and stderr to a file', 'ls &> out.txt'],
  ['an fd redirection to a file', 'ls 2> err.txt'],
  ['a >& file redirection', 'echo x >& out.txt'],
  ['a pipe into a shell', 'echo rm -rf x | sh'],
  ['a command name built at run time', '$(echo rm) -rf x'],
  ['a variable as command name', 'cmd=rm; $cmd -rf x'],
  ['a glob as command name', '/bin/r? -rf x'],
  ['an unterminated single quote', "echo 'unterminated"],
  ['an unterminated double quote', 'echo "unterminated'],
  ['an unterminated substitution', 'echo $(ls'],
  ['an unterminated backquote', 'echo `ls'],
  ['nesting too deep', `echo ${'$(echo '.repeat(20)}x${')'.repeat(20)}`],
  ['an empty command', ''],
  ['a comment only', '# ls'],
];

describe('compound commands and tricks are never auto-allowed by a harmless-command rule', () => {
  it.each(HIDDEN_RM)('%s: %j is not allowed', (_kind, command) => {
    expect(action(command)).not.toBe('allow');
    expect(action(command)).toBe('ask');
  });

  it.each(HIDDEN_RM)('%s: %j is denied by a `deny rm*` rule', (_kind, command) => {
    expect(action(command, DENY_RM)).toBe('deny');
  });

  it.each(NOT_HARMLESS)('%s: %j is not allowed', (_kind, command) => {
    expect(action(command)).toBe('ask');
  });

  it('`git status && rm -rf x` does not pass an `allow git status*` rule', () => {
    const rules: RuleConfig[] = [{ tool: 'bash', when: { command: 'git status*' }, action: 'allow' }];
    expect(action('git status', rules)).toBe('allow');
    expect(action('git status -s && git status', rules)).toBe('allow');
    expect(action('git status && rm -rf x', rules)).toBe('ask');
    expect(action('git status $(rm -rf x)', rules)).toBe('ask');
  });

  it('an allow regex is also checked command by command', () => {
    const rules: RuleConfig[] = [{ tool: 'bash', when: { command: '/^(ls|cat) /' }, action: 'allow' }];
    expect(action('ls a && cat b | cat c', rules)).toBe('allow');
    expect(action('ls a && rm b', rules)).toBe('ask');
  });
});

describe('harmless commands are allowed', () => {
  it.each([
    'ls',
    'ls -la',
    'ls -la src',
    'pwd',
    'echo hello world',
    'echo \'a b\' "c d"',
    "e''cho hi",
    'echo $HOME',
    'ls 2>/dev/null',
    'ls > /dev/null 2>&1',
    'ls 2>&1 | ls',
    'echo a && echo b; echo c | echo d',
  ])('%j', (command) => {
    expect(action(command)).toBe('allow');
  });

  it('one allow rule must cover every command: `ls && pwd` matches neither `ls*` nor `pwd` alone', () => {
    expect(action('ls && pwd')).toBe('ask');
  });
});

describe('redirections, prefixes and grants', () => {
  it('writesFile tells file writes from fd duplications and /dev/null', () => {
    const first = (command: string) => shellView(command).commands[0]!;
    expect(writesFile(first('ls > f'))).toBe(true);
    expect(writesFile(first('ls 1>> f'))).toBe(true);
    expect(writesFile(first('cat <> f'))).toBe(true);
    expect(writesFile(first('ls > "$OUT"'))).toBe(true);
    expect(writesFile(first('ls 2>&1'))).toBe(false);
    expect(writesFile(first('ls >&2'))).toBe(false);
    expect(writesFile(first('ls 2>&-'))).toBe(false);
    expect(writesFile(first('ls > /dev/null'))).toBe(false);
    expect(writesFile(first('cat < f'))).toBe(false);
    expect(writesFile(first('cat <<EOF\nx\nEOF'))).toBe(false);
  });

  it('a prefix is the program as written plus a subcommand-like first argument', () => {
    expect(commandPrefixes(shellView('npm test -- --watch && git status -s | wc -l'))).toEqual([
      ['npm', 'test'],
      ['git', 'status'],
      ['wc'],
    ]);
    expect(commandPrefixes(shellView('rm -rf build'))).toEqual([['rm']]);
    expect(commandPrefixes(shellView('find . -exec rm {} \\;'))).toEqual([['find'], ['rm']]);
    expect(commandPrefixes(shellView('/usr/bin/make all'))).toEqual([['/usr/bin/make', 'all']]);
    expect(commandPrefixes(shellView('A=1 make'))).toBeUndefined();
    expect(commandPrefixes(shellView('make > log'))).toBeUndefined();
    expect(commandPrefixes(shellView('$(x) y'))).toBeUndefined();
    expect(commandPrefixes(shellView("echo 'x"))).toBeUndefined();
  });

  it('granted prefixes cover a line only when every command starts with one of them', () => {
    const granted = [
      ['npm', 'test'],
      ['git', 'status'],
    ];
    const covers = (command: string) => prefixesCover(shellView(command), granted);
    expect(covers('npm test')).toBe(true);
    expect(covers('npm test -- --coverage && git status')).toBe(true);
    expect(covers('npm install')).toBe(false);
    expect(covers('npm test && rm -rf x')).toBe(false);
    expect(covers('npm test $(rm -rf x)')).toBe(false);
    expect(covers('npm test > out.txt')).toBe(false);
    expect(covers('FOO=1 npm test')).toBe(false);
    expect(covers('/usr/bin/npm test')).toBe(false);
    expect(covers('npm $T')).toBe(false);
    expect(prefixesCover(shellView('npm test'), [])).toBe(false);
  });
});
