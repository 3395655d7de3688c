import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  amplifierHome,
  displayStatus,
  type JsonlNote,
  projectSessionsDir,
  projectSlug,
  readMetadataFile,
  readSessionMetadata,
  readTranscript,
  sessionFolderName,
  storedData,
  storedText,
  TranscriptAppender,
  transcriptText,
} from './index.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sessions-folder-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('paths: the layout Python Amplifier uses', () => {
  it('home from AMPLIFIER_HOME (made absolute), else ~/.amplifier; the project slug; a folder name per id', () => {
    expect(amplifierHome({ AMPLIFIER_HOME: 'rel/home' })).toBe(path.resolve('rel/home'));
    expect(amplifierHome({})).toBe(path.join(os.homedir(), '.amplifier'));
    expect(projectSlug('/home/u/app')).toBe('-home-u-app');
    expect(projectSessionsDir('/h', '/srv/app')).toBe(path.join('/h', 'projects', '-srv-app', 'sessions'));
    expect(sessionFolderName('abc-1.2_x')).toBe('abc-1.2_x');
    for (const hostile of ['../../etc', 'a/b', 'a\\b', 'x\0y', 'id with spaces']) {
      expect(sessionFolderName(hostile), hostile).not.toMatch(/[/\\\0 ]/);
    }
  });
});

describe('transcript.jsonl', () => {
  it('appends one line per message, skips system and developer, starts on a fresh line after a torn tail', () => {
    const file = path.join(tmp, 'transcript.jsonl');
    writeFileSync(file, '{"role":"user","content":"one"}\n{"role":"assistant","cont');
    const appender = new TranscriptAppender(file);
    appender.append({ role: 'system', content: 'not stored' });
    appender.append({ role: 'user', content: 'two' });
    appender.append({ role: 'developer', content: 'not stored' });
    appender.close();
    appender.append({ role: 'assistant', content: 'three' });
    appender.close();
    const { messages, notes } = readTranscript(file);
    expect(messages.map((m) => m.content)).toEqual(['one', 'two', 'three']);
    expect(notes).toMatchObject([{ kind: 'invalid_line', line: 2 }]);
  });

  it('skips foreign lines (Python tracebacks, arrays, objects without a role) with a note; a missing file has none', () => {
    const file = path.join(tmp, 'transcript.jsonl');
    writeFileSync(
      file,
      [
        '{"role":"user","content":"hi","timestamp":"2026-01-01T00:00:00+00:00"}',
        'Traceback (most recent call last):',
        '["role","user"]',
        '{"role":7}',
        '{"__proto__":{"role":"user"}}',
        '',
        '{"role":"assistant","content":"hello"}',
        '{"role":"assistant","content":"torn',
      ].join('\n'),
    );
    const { messages, notes } = readTranscript(file);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(notes.map((n: JsonlNote) => [n.line, n.kind])).toEqual([
      [2, 'invalid_line'],
      [3, 'invalid_line'],
      [4, 'invalid_line'],
      [5, 'invalid_line'],
      [8, 'torn_last_line'],
    ]);
    expect(readTranscript(path.join(tmp, 'missing.jsonl'))).toEqual({ messages: [], notes: [] });
  });

  it('transcriptText leaves system and developer messages out', () => {
    expect(
      transcriptText([
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
      ]),
    ).toBe('{"role":"user","content":"u"}\n');
  });
});

describe('metadata.json', () => {
  it('reads the keys Python Amplifier writes, with their meaning, and keeps the others', () => {
    const metadata = readSessionMetadata(
      {
        session_id: 'abc',
        created: '2026-01-05T10:00:00+00:00',
        working_dir: '/srv/app',
        bundle: 'bundle:foundation',
        model: 'unknown',
        turn_count: 4,
        parent_id: 'parent-1',
        agent_name: 'explorer',
      },
      tmp,
    );
    expect(metadata).toMatchObject({
      session_id: 'abc',
      cwd: '/srv/app',
      working_dir: '/srv/app',
      updated: '2026-01-05T10:00:00+00:00',
      bundle: 'bundle:foundation',
      model: null,
      turn_count: 4,
      parent_id: 'parent-1',
      agent_name: 'explorer',
      status: 'completed',
    });
    expect(readSessionMetadata({}, path.join(tmp, 'the-id'))).toMatchObject({
      session_id: 'the-id',
      cwd: '',
    });
  });

  it('hostile or broken metadata never throws: wrong types are replaced, non-objects are undefined or a problem', () => {
    for (const raw of [null, [], 'text', 42, true]) expect(readSessionMetadata(raw, tmp)).toBeUndefined();
    const odd = readSessionMetadata(
      JSON.parse('{"__proto__":{"status":"running"},"turn_count":"9","pid":"1","options":[1],"plan":null}'),
      tmp,
    );
    expect(odd).toMatchObject({ status: 'completed', turn_count: 0, pid: 0, plan: {} });
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);

    const dir = path.join(tmp, 's');
    mkdirSync(dir);
    expect(readMetadataFile(dir)).toMatchObject({
      metadata: null,
      problem: expect.stringMatching(/missing/),
    });
    for (const [text, problem] of [
      ['{"status":', /not valid JSON/],
      ['[1,2]', /not a JSON object/],
      ['"x"', /not a JSON object/],
    ] as const) {
      writeFileSync(path.join(dir, 'metadata.json'), text);
      expect(readMetadataFile(dir), text).toMatchObject({
        metadata: null,
        problem: expect.stringMatching(problem),
      });
    }
    writeFileSync(path.join(dir, 'metadata.json'), '{"status":"running","pid":0}');
    expect(readMetadataFile(dir)).toEqual({ metadata: { status: 'running', pid: 0 }, problem: null });
  });

  it('a running session whose process is gone is interrupted; this process, or another status, is as written', () => {
    expect(displayStatus('running', process.pid)).toBe('running');
    expect(displayStatus('running', 0)).toBe('interrupted');
    expect(displayStatus('running', -5)).toBe('interrupted');
    expect(displayStatus('completed', 0)).toBe('completed');
    expect(displayStatus('failed', process.pid)).toBe('failed');
  });

  it('what metadata.json keeps of a prompt or a config is redacted with the event log rules', () => {
    const key = ['sk-proj-', 'abcdefghijklmnopqrstuvwxyz0123456789ABCD'].join('');
    expect(storedText(`use OPENAI_API_KEY=${key} please`)).not.toContain(key);
    expect(storedText('plain prompt')).toBe('plain prompt');
    const stored = storedData({ config: { api_key: 'short-secret', nested: [`Bearer ${key}`] }, n: 1n });
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(JSON.stringify(stored)).not.toContain('short-secret');
    expect(stored).toMatchObject({ n: '1' });
    // The file written from it is plain JSON.
    writeFileSync(path.join(tmp, 'metadata.json'), JSON.stringify(stored));
    expect(JSON.parse(readFileSync(path.join(tmp, 'metadata.json'), 'utf8'))).toEqual(stored);
  });
});
