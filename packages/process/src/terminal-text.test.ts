import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';

const ESC = '\u001b';
const BEL = '\u0007';

describe('terminalSafe', () => {
  it('keeps ordinary text, other scripts and emoji as they are', () => {
    for (const text of ['read_file', 'Résumé of 東京 🚀 — done', 'a-b_c.d:e', ''])
      expect(terminalSafe(text)).toBe(text);
  });

  it.each([
    ['OSC title with BEL', `x${ESC}]0;pwned${BEL}y`, 'xy'],
    ['OSC title with ESC \\', `x${ESC}]2;pwned${ESC}\\y`, 'xy'],
    ['OSC 52 clipboard write', `x${ESC}]52;c;cm0gLXJmIH4=${BEL}y`, 'xy'],
    ['OSC 8 hidden link', `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`, 'click'],
    ['unterminated OSC', `name${ESC}]0;title to the end`, 'name'],
    ['C1 OSC (0x9d) with ST (0x9c)', `x\u009d0;pwned\u009cy`, 'xy'],
    ['DCS', `x${ESC}Pq#0;2;0;0;0${ESC}\\y`, 'xy'],
    ['APC', `x${ESC}_payload${BEL}y`, 'xy'],
    ['CSI colour', `${ESC}[31mred${ESC}[0m`, 'red'],
    ['CSI with private parameters', `a${ESC}[?1049hb${ESC}[?25l`, 'ab'],
    ['CSI clear screen and cursor moves', `${ESC}[2J${ESC}[H${ESC}[10;20Hx`, 'x'],
    ['C1 CSI (0x9b)', `\u009b31mred`, 'red'],
    ['ESC c (reset) and ESC 7', `a${ESC}cb${ESC}7c`, 'abc'],
    ['charset selection ESC ( 0', `a${ESC}(0b`, 'ab'],
    ['lone ESC at the end', `name${ESC}`, 'name'],
    ['carriage return overwriting', 'safe_tool\rrm -rf /', 'safe_toolrm -rf /'],
    ['backspaces', 'rm\b\b\bls', 'rmls'],
    ['BEL, NUL and DEL', `a${BEL}b\u0000c\u007fd`, 'abcd'],
    ['right-to-left override', 'good\u202Eexe.txt', 'goodexe.txt'],
    ['bidi isolates and marks', '\u2066a\u2067b\u2068c\u2069\u200e\u200f\u061c', 'abc'],
    ['zero-width and BOM', 'a\u200bb\u200dc\ufeffd\u2060e', 'abcde'],
    ['Unicode tags (hidden ASCII)', `a${String.fromCodePoint(0xe0041, 0xe0042)}b`, 'ab'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'abc'],
    ['lone surrogates', 'a\ud800b\udc00c', 'abc'],
  ])('strips %s', (_label, input, expected) => {
    expect(terminalSafe(input)).toBe(expected);
    // Whatever is left holds no ESC, control or bidi character.
    expect(terminalSafe(input)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('turns line feeds and tabs into spaces in one-line text, keeps them with multiline', () => {
    expect(terminalSafe('a\nFAKE: ok\tb')).toBe('a FAKE: ok b');
    expect(terminalSafe(`a\n${ESC}[31mb\tc\r\n`, { multiline: true })).toBe('a\nb\tc\n');
  });

  it('caps the length without cutting a surrogate pair', () => {
    expect(terminalSafe('abcdef', { max: 3 })).toBe('abc…');
    expect(terminalSafe('ab🚀cd', { max: 3 })).toBe('ab…');
    expect(terminalSafe(`${ESC}[31m${'x'.repeat(10)}`, { max: 4 })).toBe('xxxx…');
  });

  it('turns non-strings into text', () => {
    expect(terminalSafe(42)).toBe('42');
    expect(terminalSafe(undefined)).toBe('undefined');
  });

  it('handles a large hostile input in one pass', () => {
    const hostile = `${ESC}[31m\u202e\r`.repeat(50_000);
    expect(terminalSafe(`${hostile}ok`)).toBe('ok');
  });
});

describe('terminalSafeJson', () => {
  it('escapes what JSON.stringify leaves raw, and the data reads back the same', () => {
    const data = { name: `a\u009b31m\u202eb\u200b${ESC}[0m`, ok: 'plain 東京' };
    const json = terminalSafeJson(JSON.stringify(data));
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u202e]/);
    expect(json).toContain('\\u009b');
    expect(JSON.parse(json)).toEqual(data);
    // The same on every call (no regex state carried over), and clean JSON as it is.
    expect(terminalSafeJson(JSON.stringify(data))).toBe(json);
    expect(terminalSafeJson('{"a":"plain"}')).toBe('{"a":"plain"}');
  });
});
