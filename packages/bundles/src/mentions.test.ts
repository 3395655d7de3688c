import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempTrees, tempTree } from './__fixtures__/files.js';
import { loadBundle } from './load.js';
import { buildSystemPrompt, extractMentions, missingContextFiles } from './mentions.js';

afterEach(removeTempTrees);

describe('extractMentions', () => {
  it('finds @paths and @ns:paths; ignores code, e-mail addresses and duplicates', () => {
    const text = [
      'Read @docs/guide.md and @ns:context/a.md, then @docs/guide.md again.',
      'Mail me@example.com. Home: @~/notes.',
      '`@inline/code.md` is code, and so is this:',
      '```',
      '@fenced/code.md',
      '```',
      'The end: @last.',
    ].join('\n');
    expect(extractMentions(text)).toEqual(['docs/guide.md', 'ns:context/a.md', '~/notes', 'last']);
  });
});

describe('buildSystemPrompt', () => {
  it('instruction, ---, then context files and mention targets as <context_file> blocks', async () => {
    const dir = tempTree({
      'bundle.md':
        '---\nbundle: {name: me}\ncontext:\n  rules: context/rules.md\n---\nBe brief. See @me:context/extra.md and @notes.',
      'context/rules.md': 'Rule one.',
      'context/extra.md': 'Extra, which points at @../deeper.md',
      'notes.md': 'Notes without a suffix in the mention.',
      'deeper.md': 'Deeper.',
    });
    const bundle = await loadBundle(dir);
    const prompt = await buildSystemPrompt(bundle);
    expect(prompt).toBe(
      [
        'Be brief. See @me:context/extra.md and @notes.',
        '---',
        [
          `<context_file paths="me:rules -> ${path.join(dir, 'context/rules.md')}">\nRule one.\n</context_file>`,
          `<context_file paths="@me:context/extra.md -> ${path.join(dir, 'context/extra.md')}">\nExtra, which points at @../deeper.md\n</context_file>`,
          `<context_file paths="@../deeper.md -> ${path.join(dir, 'deeper.md')}">\nDeeper.\n</context_file>`,
          `<context_file paths="@notes -> ${path.join(dir, 'notes.md')}">\nNotes without a suffix in the mention.\n</context_file>`,
        ].join('\n\n'),
      ].join('\n\n'),
    );
  });

  it('the same content once (SHA-256), missing files left out, at most 3 levels deep', async () => {
    const dir = tempTree({
      'bundle.md': '@a.md @copy.md @missing.md @l1.md',
      'a.md': 'same',
      'copy.md': 'same',
      'l1.md': 'one @l2.md',
      'l2.md': 'two @l3.md',
      'l3.md': 'three @l4.md',
      'l4.md': 'four',
    });
    const prompt = (await buildSystemPrompt(await loadBundle(dir))) ?? '';
    expect(prompt.match(/<context_file/g)).toHaveLength(4);
    expect(prompt).toContain(
      `paths="@a.md -> ${path.join(dir, 'a.md')}, @copy.md -> ${path.join(dir, 'copy.md')}"`,
    );
    expect(prompt).not.toContain('missing.md ->');
    expect(prompt).toContain('three @l4.md');
    expect(prompt).not.toContain('\nfour\n');
  });

  it('@ns: mentions of an included bundle resolve in its folder; a folder gives a listing; ~ is refused', async () => {
    const home = tempTree({ 'mine.md': 'Mine.' });
    const dir = tempTree({
      'lib/bundle.yaml': 'bundle: {name: lib}\n',
      'lib/context/lib.md': 'From lib.',
      'root.md': '---\nincludes: [./lib]\n---\n@lib:context/lib.md @lib:context @~/mine.md',
    });
    const lib = path.join(dir, 'lib');
    const warnings: string[] = [];
    const prompt =
      (await buildSystemPrompt(await loadBundle(path.join(dir, 'root.md')), {
        home,
        onWarning: (w) => warnings.push(w),
      })) ?? '';
    expect(prompt).toContain('From lib.');
    expect(prompt).toContain(`Directory listing of ${path.join(lib, 'context')}:\n- lib.md`);
    expect(prompt).not.toContain('Mine.');
    expect(prompt).toContain('<refused_reference reference="@~/mine.md"');
    expect(warnings).toEqual([
      `The mention '@~/mine.md' in ${path.join(dir, 'root.md')} is refused: it names the home folder (~): config never reads from the home folder. Write a path relative to the declaring file, or ns:path into a loaded bundle.`,
    ]);
  });

  it('plain mentions resolve against the declaring file, whatever the cwd; no instruction and no context: no prompt', async () => {
    const dir = tempTree({ 'bundle.md': 'Look @here.md', 'here.md': 'Here.' });
    const cwdA = tempTree({ 'here.md': 'Not this one.' });
    const cwdB = tempTree();
    const bundle = await loadBundle(dir);
    const a = await buildSystemPrompt(bundle, { roots: [cwdA] });
    const b = await buildSystemPrompt(await loadBundle(path.join(dir, 'bundle.md'), { baseDir: cwdB }), {
      roots: [cwdB],
    });
    expect(a).toContain('Here.');
    expect(a).not.toContain('Not this one.');
    expect(b).toBe(a);
    const empty = tempTree({ 'bundle.yaml': 'tools: []\n' });
    expect(await buildSystemPrompt(await loadBundle(empty))).toBeUndefined();
  });
});

describe('app namespaces', () => {
  it('@user:x and @project:x resolve in the folders the app gives; .. is refused; a bundle namespace wins', async () => {
    const user = tempTree({ 'prefs.md': 'User prefs.' });
    const outer = tempTree({ 'project/notes.md': 'Project notes.', 'secret.md': 'Secret.' });
    const project = path.join(outer, 'project');
    const dir = tempTree({ 'bundle.md': '@user:prefs.md @project:notes.md @project:../secret.md' });
    const prompt = (await buildSystemPrompt(await loadBundle(dir), { namespaces: { user, project } })) ?? '';
    expect(prompt).toContain('User prefs.');
    expect(prompt).toContain('Project notes.');
    expect(prompt).not.toContain('Secret.');
    expect(prompt.match(/<context_file/g)).toHaveLength(2);
  });
});

describe('missingContextFiles', () => {
  it('names context entries whose file is missing or whose namespace is unknown', async () => {
    const dir = tempTree({
      'bundle.yaml': 'bundle: {name: me}\ncontext:\n  include: [me:here.md, me:gone.md, other:x.md]\n',
      'here.md': 'Here.',
    });
    expect(missingContextFiles(await loadBundle(dir))).toEqual([
      `context 'me:gone.md': no file ${path.join(dir, 'gone.md')} (left out of the prompt)`,
      "context 'other:x.md': the namespace of other:x.md is not loaded (left out of the prompt)",
    ]);
  });
});
