// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, not templates
import { describe, expect, it } from 'vitest';
import {
  commandLine,
  fullCommandText,
  parseOptions,
  parseShellCommands,
  printedText,
  programName,
  type ShellCommand,
  type ShellWord,
  shellScript,
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
    ['case "$OSTYPE" in darwin*) echo mac ;; linux*) echo linux ;; esac', ['echo mac', 'echo linux']],
    ['case $1 in\n  start|run) up ;;\n  (stop) down ;&\n  *) help ;;&\nesac', ['up', 'down', 'help']],
    ['case $x in a) b;; esac; c', ['b', 'c']],
    ['case $x in $(a)) b;; esac', ['a', 'b']],
    ['case $x in a) b;; `c`) d;; esac', ['b', 'c', 'd']],
    ['case $x in a) b;; c d', ['b', 'c d']],
    ['case $x in a) b;;\nc d\nesac', ['b', 'c d']],
    ['echo case x in a) b', ['echo case x in a', 'b']],
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
    expect(splitShellCommands('cat list | sh').at(-1)!.opaque).toBe('sh reads commands from a pipe');
    expect(splitShellCommands('(echo ls) | sh').at(-1)!.opaque).toBe('sh reads commands from a pipe');
    expect(splitShellCommands('bash <(cat x)').at(-1)!.opaque).toBe(
      'bash runs the output of a command (<(cat x))',
    );
    expect(splitShellCommands('sh < script.sh')[0]!.opaque).toBeUndefined();
    const deep = splitShellCommands('a $(b $(c $(d)))', { maxDepth: 2 });
    expect(deep.find((c) => commandLine(c) === 'd')!.opaque).toBe('commands nested too deeply to check');
  });

  it('reads $((...)) as arithmetic: no command of its own, but the substitutions inside it are commands', () => {
    for (const script of ['echo served-$((6*7))', 'echo $(( (1+2)*3 ))', 'x=$((x+1)); echo "$((x * 2))"']) {
      const commands = splitShellCommands(script);
      expect(
        commands.every((c) => c.opaque === undefined),
        script,
      ).toBe(true);
      expect(commands.map(commandLine)).not.toContain('6*7');
    }
    expect(lines('echo served-$((6*7))')).toEqual(['echo served-$((6*7))']);
    // Commands inside arithmetic run: they are found, at any depth.
    expect(lines('echo $(( $(rm -rf /) + 1 ))')).toContain('rm -rf /');
    expect(lines('echo $((1+`id -u`))')).toContain('id -u');
    expect(lines('echo $(( $(( $(whoami) )) ))')).toContain('whoami');
    expect(lines('echo "$(( $(curl evil) ))"')).toContain('curl evil');
    // Not arithmetic after all: a command substitution of a subshell, read as commands.
    expect(lines('echo $((rm -rf /) )')).toContain('rm -rf /');
    expect(lines('x=$((sudo ls) ; id)')).toEqual(expect.arrayContaining(['id']));
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

describe('pipes: each command knows the simple command writing to it (issue 16)', () => {
  it('input links the writer of a pipe; wrapped commands share it; compound writers are unknown', () => {
    const [curl, tee, sudo, python] = splitShellCommands('curl -s x | tee f | sudo python3');
    expect(commandLine(tee!.input!)).toBe('curl -s x');
    expect(commandLine(sudo!.input!)).toBe('tee f');
    expect(python).toMatchObject({ via: 'sudo', piped: true });
    expect(python!.input).toBe(sudo!.input);
    expect(curl!.input).toBeUndefined();
    expect(splitShellCommands('a; b').map((c) => c.input)).toEqual([undefined, undefined]);
    for (const script of ['(a) | b', '{ a; } | b', 'for x in 1; do a; done | b', 'if a; then b; fi | c']) {
      expect(splitShellCommands(script).at(-1)!.input, script).toBeUndefined();
    }
  });

  it('what reads a pipe into a subshell, a brace group or a loop is read by every command inside', () => {
    for (const script of [
      'curl x | (sh)',
      'curl x | (true; sh)',
      'curl x | { true; sh; }',
      'curl x | while read l; do sh; done',
      'curl x | if true; then sh; fi',
    ]) {
      const sh = splitShellCommands(script).find((c) => commandLine(c) === 'sh')!;
      expect(sh.piped, script).toBe(true);
      expect(commandLine(sh.input!), script).toBe('curl x');
    }
    expect(splitShellCommands('(a) && b').map((c) => c.piped)).toEqual([false, false]);
    expect(splitShellCommands('x | (a); b').at(-1)!.piped).toBe(false);
    expect(commandLine(splitShellCommands('sudo ls')[0]!.inner!)).toBe('ls');
  });

  it('a pipe reader waits for a writer that reads a here-document', () => {
    const commands = splitShellCommands('cat <<EOF | sh\nrm -rf /\nEOF\necho done');
    expect(commands.map(commandLine)).toEqual(['cat', 'sh', 'rm -rf /', 'echo done']);
    expect(commandLine(commands[1]!.input!)).toBe('cat');
  });
});

describe('text a shell runs from echo, printf, cat or a process substitution is read as a script', () => {
  it.each([
    ["echo 'rm -rf /' | sh", 'rm -rf /'],
    ['echo rm -rf / | bash', 'rm -rf /'],
    ["printf 'rm -rf %s\\n' / | sh", 'rm -rf /'],
    ["printf '%s ' rm -rf / | sh", 'rm -rf /'],
    ["echo -e 'x\\nrm -rf /' | sh", 'rm -rf /'],
    ["echo 'x\\nrm -rf /' | sh", 'rm -rf /'],
    ["echo 'rm -rf /' | cat | tee log | sudo sh", 'rm -rf /'],
    ["cat <<'EOF' | sh\nrm -rf /\nEOF", 'rm -rf /'],
    ["cat <<< 'rm -rf /' | bash -s", 'rm -rf /'],
    ["bash <(echo 'rm -rf /')", 'rm -rf /'],
    ["sh < <(printf 'rm -rf /')", 'rm -rf /'],
    ["source <(echo 'rm -rf /')", 'rm -rf /'],
    [". <(echo 'rm -rf /')", 'rm -rf /'],
    ["echo 'rm -rf /' | source /dev/stdin", 'rm -rf /'],
    ["echo 'rm -rf /' | bash /dev/stdin", 'rm -rf /'],
    ["echo 'rm -rf /' | sh -", 'rm -rf /'],
  ])('%j runs %j', (script, inner) => {
    const commands = splitShellCommands(script);
    expect(commands.map(commandLine)).toContain(inner);
    expect(commands.filter((c) => c.opaque !== undefined)).toEqual([]);
  });

  it('printedText: what echo, printf and cat print, or undefined', () => {
    const printed = (script: string) => printedText(splitShellCommands(script)[0]!);
    expect(printed('echo a  b')).toEqual(['a b\n']);
    expect(printed('echo -n a')).toEqual(['a']);
    expect(printed("echo 'a\\tb'")).toEqual(['a\\tb\n', 'a\tb\n']);
    expect(printed("printf '%s=%d;' a 1 b 2")).toEqual(['a=1;b=2;']);
    expect(printed("printf 'x%%\\n'")).toEqual(['x%\n']);
    expect(printed('cat <<<hi')).toEqual(['hi\n']);
    expect(printed('echo $HOME')).toBeUndefined();
    expect(printed('printf -v x a')).toBeUndefined();
    expect(printed('cat file')).toBeUndefined();
    expect(printed('ls')).toBeUndefined();
  });
});

describe('parseOptions: flags read as getopt reads them', () => {
  const words = (text: string): ShellWord[] => splitShellCommands(`x ${text}`)[0]!.argv.slice(1);
  const RM = {
    long: [
      'recursive',
      'force',
      'dir',
      'interactive',
      'verbose',
      'preserve-root',
      'no-preserve-root',
      'one-file-system',
    ],
  };

  it.each([
    ['-rf /'],
    ['-r -f /'],
    ['-fr /'],
    ['-Rf /'],
    ['--recursive --force /'],
    ['--rec -f /'],
    ['-r -r -- /'],
    ['/ -rf'],
    ['-vrf --no-preserve-root /'],
  ])('rm %s: recursive, operand /', (text) => {
    const parsed = parseOptions(words(text), RM);
    expect(parsed.short.has('r') || parsed.short.has('R') || parsed.long.has('recursive')).toBe(true);
    expect(parsed.operands.map((w) => w.value)).toEqual(['/']);
  });

  it('-- ends the options; values attach or follow; ambiguous long options stay as written', () => {
    expect(parseOptions(words('-- -rf')).operands.map((w) => w.value)).toEqual(['-rf']);
    const chmod = parseOptions(words('--reference=a -m 755 -Rv b'), {
      shortWithValue: 'm',
      long: ['recursive', 'reference=', 'preserve-root'],
    });
    expect(chmod.values.map((v) => [v.option, v.value?.value])).toEqual([
      ['--reference', 'a'],
      ['-m', '755'],
    ]);
    expect([...chmod.short]).toEqual(['m', 'R', 'v']);
    expect(chmod.operands.map((w) => w.value)).toEqual(['b']);
    expect([...parseOptions(words('--re x'), { long: ['recursive', 'reference='] }).long]).toEqual(['re']);
    const posix = parseOptions(words('a -r b'), { operandsFirst: true });
    expect(posix.operands.map((w) => w.value)).toEqual(['a', '-r', 'b']);
  });

  it('words that depend on run time could be options', () => {
    const parsed = parseOptions(words('$FLAGS -$x "$dir" ./$y'));
    expect(parsed.unknown.map((w) => w.value)).toEqual(['$FLAGS', '-$x', '$dir']);
    expect(parsed.operands.map((w) => w.value)).toEqual(['$FLAGS', '$dir', './$y']);
  });
});

it('shellScript: -c script, a script file, or standard input', () => {
  const argv = (text: string) => splitShellCommands(text)[0]!.argv;
  expect(shellScript(argv("bash -c 'a'"))).toEqual({ script: 'a', readsStdin: false });
  expect(shellScript(argv('bash x.sh'))).toMatchObject({ file: { value: 'x.sh' }, readsStdin: false });
  for (const text of ['bash', 'bash -s', 'sh -', 'bash /dev/stdin', 'sh /proc/self/fd/0']) {
    expect(shellScript(argv(text)), text).toEqual({ readsStdin: true });
  }
});

it('new wrappers are followed', () => {
  for (const text of [
    'pkexec rm x',
    'runuser -u root rm x',
    'taskset -c 0 rm x',
    'chrt 5 rm x',
    'toybox rm x',
    'unshare -r rm x',
    'systemd-run --user --scope rm x',
    'proxychains4 -q rm x',
  ]) {
    expect(lines(text), text).toContain('rm x');
  }
});
