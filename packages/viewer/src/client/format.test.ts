import { describe, expect, it } from 'vitest';
import { readable } from './format.js';

describe('readable', () => {
  it('shows the text of a tool output object with its line breaks and tabs, not as \\n and \\t', () => {
    const output = { stdout: 'a\tb\nc\n', stderr: '', exit_code: 0 };
    expect(readable(output)).toBe('stdout:\n  a\tb\n  c\nstderr: \nexit_code: 0');
  });

  it('reads a stored tool result (a string holding JSON) the same way', () => {
    const stored = JSON.stringify({ content: 'line 1\nline 2', truncated: false });
    expect(readable(stored)).toBe('content:\n  line 1\n  line 2\ntruncated: false');
  });

  it('keeps plain text, text that only looks like JSON, and objects without multi-line text as they were', () => {
    expect(readable('plain\ntext')).toBe('plain\ntext');
    expect(readable('{not json')).toBe('{not json');
    expect(readable({ path: 'a.txt', bytes: 3 })).toBe('{\n  "path": "a.txt",\n  "bytes": 3\n}');
    expect(readable(['x', 'y'])).toBe('[\n  "x",\n  "y"\n]');
    expect(readable(undefined)).toBe('');
    expect(readable(42)).toBe('42');
  });

  it('nested objects and arrays of texts keep their line breaks, indented under their key', () => {
    const value = { result: { files: ['a\nb', 'c'] } };
    expect(readable(value)).toBe('result:\n  files:\n    [0]:\n      a\n      b\n    [1]: c');
    expect(readable({ files: ['a\nb', 'c'] })).toBe('files:\n  [0]:\n    a\n    b\n  [1]: c');
  });

  it('never yields markup: text is returned for a <pre>, where the page escapes it', () => {
    expect(readable({ html: '<b>\n</b>' })).toBe('html:\n  <b>\n  </b>');
  });
});
