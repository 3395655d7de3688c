// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, not templates
import { describe, expect, it } from 'vitest';
import {
  commandLine,
  fullCommandText,
  parseShellCommands,
  programName,
  type ShellCommand,
  splitShellCommands,
} from './index.js';

/** `[via, depth, commandLine]` of every command, in order. */
function lines(script: string): string[] {
  return splitShellCommands(script).map(commandLine);
}

function only(script: string): ShellCommand {
  const commands = splitShellCommands(script);
  expect(commands).toHaveLength(1);
  return commands[0]!;
}

describe('splitShellCommands: compound commands', () => {
  it.each([
    ['a; b', ['a', 'b']],
    ['a && b || c', ['a', 'b', 'c']],
    ['a | b |& c', ['a', 'b', 'c']],
    ['a & b', ['a', 'b']],
    ['a\nb\n\nc', ['a', 'b', 'c']],
    ['(a; b) && { c; }', ['a', 'b', 'c']],
    ['if a; then b; elif c; then d; else e; fi', ['a', 'b', 'c', 'd', 'e']],
    ['while a; do b; done', ['a', 'b']],
    ['for x in 1 2; do b $x; done', ['b $x']],
    ['case $x in a) b;; esac', ['b']],
    ['! a', ['a']],
    ['a # b; c', ['a']],
    ['a \\\n  --flag', ['a --flag']],
  ])('%j', (script, expected) => {
    expect(lines(script)).toEqual(expected);
  });

  it('keeps each command source text and marks piped commands', () => {
    const [first, second] = splitShellCommands("grep -r 'a b' src | wc -l");
    expect(first).toMatchObject({ source: "grep -r 'a b' src", piped: false, depth: 0, via: 'top' });
    expect(second).toMatchObject({ source: 'wc -l', piped: true });
  });
});

describe('splitShellCommands: words', () => {
  it.each([
    ["s''udo", 'sudo'],
    ['"su"do', 'sudo'],
    ['\\sudo', 'sudo'],
    ["$'\\x73udo'", 'sudo'],
    ["$'\\163udo'", 'sudo'],
    ["$'\\u0073udo'", 'sudo'],
    ['\'a b\'"c d"e\\ f', 'a bc de f'],
  ])('%j reads %j', (script, value) => {
    expect(only(script).argv[0]).toMatchObject({ value, dynamic: false, quoted: true });
  });

  it('an unquoted $IFS separates words; a quoted one does not', () => {
    expect(only('rm${IFS}-rf$IFS/').argv.map((w) => w.value)).toEqual(['rm', '-rf', '/']);
    expect(only('echo "a${IFS}b"').argv).toHaveLength(2);
  });

  it('$IFS is a dynamic word when the script assigns IFS', () => {
    expect(splitShellCommands('IFS=x; s${IFS}do').at(-1)!.opaque).toContain('computed at run time');
  });

  it('flags expansions, globs and braces as dynamic', () => {
    const words = splitShellCommands('cmd $HOME ${x:-y} $(date) `id` *.ts a[bc] {a,b} plain ~/x')
      .at(-1)!
      .argv.slice(1);
    expect(words.map((w) => w.dynamic)).toEqual([true, true, true, true, true, true, true, false, false]);
  });

  it('separates assignments and redirections from the command', () => {
    const command = only('A=1 B="x y" cmd arg 2>/dev/null >>out <in 3>&1');
    expect(command.assignments.map((w) => w.value)).toEqual(['A=1', 'B=x y']);
    expect(command.argv.map((w) => w.value)).toEqual(['cmd', 'arg']);
    expect(command.redirects.map((r) => [r.op, r.target.value])).toEqual([
      ['2>', '/dev/null'],
      ['>>', 'out'],
      ['<', 'in'],
      ['3>&', '1'],
    ]);
    expect(fullCommandText(command)).toBe('A=1 B=x y cmd arg 2> /dev/null >> out < in 3>& 1');
    expect(only('"A"=1').assignments).toEqual([]);
  });

  it('an unterminated quote ends the word at the end of the text', () => {
    expect(only("echo 'abc").argv.map((w) => w.value)).toEqual(['echo', 'abc']);
  });
});

describe('splitShellCommands: nested commands', () => {
  it('finds substitutions at any depth, inside double quotes too', () => {
    const commands = splitShellCommands('echo "$(a $(b) `c`)" <(d) >(e)');
    expect(commands.map((c) => [commandLine(c), c.depth])).toEqual([
      ['b', 2],
      ['c', 2],
      ['a $(b) `c`', 1],
      ['d', 1],
      ['e', 1],
      ['echo $(a $(b) `c`) <(d) >(e)', 0],
    ]);
    expect(commands[0]!.via).toBe('substitution');
  });

  it('parses unquoted here-document bodies for substitutions only; quoted ones not at all', () => {
    expect(lines('cat <<EOF\nsudo text\n$(a)\nEOF\nb')).toEqual(['a', 'cat', 'b']);
    expect(lines("cat <<'EOF'\n$(a)\nEOF")).toEqual(['cat']);
    const [cat] = splitShellCommands('cat <<-EOF\n\tbody\n\tEOF');
    expect(cat!.redirects[0]!.heredoc).toEqual({ body: '\tbody', expands: true });
  });

  it('follows wrappers and shells', () => {
    expect(lines('env -i A=1 nice -n 5 timeout -s KILL 5 sudo -u root ls')).toEqual([
      'env -i A=1 nice -n 5 timeout -s KILL 5 sudo -u root ls',
      'nice -n 5 timeout -s KILL 5 sudo -u root ls',
      'timeout -s KILL 5 sudo -u root ls',
      'sudo -u root ls',
      'ls',
    ]);
    expect(lines('bash -lc "a; b"')).toEqual(['bash -lc a; b', 'a', 'b']);
    expect(lines("su root -c 'a'")).toEqual(['su root -c a', 'a']);
    expect(lines("env -S'a b'")).toEqual(['env -Sa b', 'a b']);
    expect(lines("watch -n 1 'a b'")).toEqual(['watch -n 1 a b', 'a b']);
    expect(lines('eval a "b c"')).toEqual(['eval a b c', 'a b c']);
    expect(lines('xargs -I{} a {}')).toEqual(['xargs -I{} a {}', 'a {}']);
    expect(lines('find . -exec a {} \\; -execdir b {} +')).toEqual([
      'find . -exec a {} ; -execdir b {} +',
      'a {}',
      'b {}',
    ]);
    expect(lines('command -v sudo')).toEqual(['command -v sudo']);
    expect(lines('bash script.sh')).toEqual(['bash script.sh']);
    expect(lines('bash <<<"a b"')).toEqual(['bash', 'a b']);
    const wrapped = splitShellCommands('sudo ls')[1]!;
    expect(wrapped).toMatchObject({ wrapped: true, via: 'sudo', source: 'sudo ls', depth: 1 });
  });

  it('marks what cannot be checked from the text', () => {
    expect(only('$cmd arg').opaque).toBe('the command name is computed at run time ($cmd)');
    expect(splitShellCommands('echo ls | sh').at(-1)!.opaque).toBe('sh reads commands from a pipe');
    expect(splitShellCommands('sh < script.sh')[0]!.opaque).toBeUndefined();
    const deep = splitShellCommands('a $(b $(c $(d)))', { maxDepth: 2 });
    expect(deep.find((c) => commandLine(c) === 'd')!.opaque).toBe('commands nested too deeply to check');
  });

  it('survives pathological nesting and size without throwing', () => {
    const nested = `${'$('.repeat(5000)}x${')'.repeat(5000)}`;
    const commands = splitShellCommands(nested);
    expect(commands.some((c) => c.opaque === 'commands nested too deeply to check')).toBe(true);
    expect(splitShellCommands(`echo ${'a'.repeat(1_000_000)}`)).toHaveLength(1);
  });
});

it('programName drops the directory', () => {
  expect(programName('/usr/bin/sudo')).toBe('sudo');
  expect(programName('./x')).toBe('x');
  expect(programName('dir/')).toBe('dir/');
});

describe('parseShellCommands: syntax problems', () => {
  it.each([
    ["echo 'abc", 'unterminated single quote'],
    ['echo "abc', 'unterminated double quote'],
    ["echo $'abc", "unterminated $'...' quote"],
    ['echo `id', 'unterminated backquote'],
    ['echo $(id', 'unterminated command or process substitution'],
    ['diff <(ls a) <(ls b', 'unterminated command or process substitution'],
    ['echo ${x', 'unterminated ${...}'],
    ["echo ${x:-'y}", 'unterminated single quote'],
    ['(a; b', 'unterminated ( subshell'],
    ['echo "$(a \'b)"', 'unterminated single quote'],
  ])('%j: %s', (script, problem) => {
    const parsed = parseShellCommands(script);
    expect(parsed.syntaxError).toBe(problem);
    expect(parsed.commands).toEqual(splitShellCommands(script));
  });

  it.each([
    'echo \'a b\' "c $(d "e") f" `g` $\'h\' ${i:-j}',
    '(a; b) && { c; }',
    'arr=(a b) && echo ${arr[0]}',
    'case $x in (a) b;; c) d;; esac',
    'cat <<EOF\n$(a)\nEOF',
    'cat <<EOF\nno end',
    'echo \\',
    '',
  ])('%j is complete', (script) => {
    const parsed = parseShellCommands(script);
    expect(parsed).not.toHaveProperty('syntaxError');
  });
});
