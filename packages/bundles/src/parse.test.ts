import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempTrees, tempTree } from './__fixtures__/files.js';
import { BundleLoadError, BundleNotFoundError, BundleValidationError } from './errors.js';
import { parseBundleText, readBundleFile, splitFrontMatter } from './parse.js';

afterEach(removeTempTrees);

describe('Markdown bundles', () => {
  it('front matter is the config, the trimmed body the instruction (BOM stripped)', () => {
    const text =
      '\uFEFF---\nbundle:\n  name: demo\n  version: 2.0.0\ntools:\n  - module: tool-bash\n---\n\n# Hello\n\nBe brief.\n\n';
    const bundle = parseBundleText(text, '/x/bundle.md');
    expect(bundle.name).toBe('demo');
    expect(bundle.version).toBe('2.0.0');
    expect(bundle.tools).toEqual([{ module: 'tool-bash' }]);
    expect(bundle.instruction).toBe('# Hello\n\nBe brief.');
    expect(bundle.basePath).toBe('/x');
  });

  it('no front matter: the whole file is the body; an empty body is no instruction', () => {
    expect(parseBundleText('Just text.\n', '/x/a.md').instruction).toBe('Just text.');
    expect(parseBundleText('---\nbundle: {name: a}\n---\n  \n', '/x/a.md').instruction).toBeUndefined();
    expect(splitFrontMatter('---\n---\nbody').yaml).toBe('');
  });

  it('a --- rule later in the body is not front matter', () => {
    const bundle = parseBundleText('Intro\n\n---\n\nMore\n', '/x/a.md');
    expect(bundle.instruction).toBe('Intro\n\n---\n\nMore');
  });

  it('bad YAML in the front matter is a BundleLoadError naming the file', () => {
    expect(() => parseBundleText('---\ntools: [\n---\n', '/x/bad.md')).toThrow(BundleLoadError);
    expect(() => parseBundleText('---\ntools: [\n---\n', '/x/bad.md')).toThrow(/\/x\/bad\.md/);
  });
});

describe('YAML bundles', () => {
  it('a YAML error names the line and column and does not end on a dangling colon', () => {
    let message = '';
    try {
      parseBundleText('bundle:\n  name: y\ntools: [a\n', '/x/broken.yaml');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/Cannot parse the bundle \/x\/broken\.yaml \(YAML\)/);
    expect(message).toMatch(/line \d+, column \d+$/m);
    expect(message.trimEnd()).not.toMatch(/:$/);
  });

  it('the whole file is config, no instruction; version defaults to 1.0.0', () => {
    const bundle = parseBundleText('bundle:\n  name: y\nincludes:\n  - a\n  - bundle: b:c\n', '/x/y.yaml');
    expect(bundle.instruction).toBeUndefined();
    expect(bundle.version).toBe('1.0.0');
    expect(bundle.includes).toEqual(['a', 'b:c']);
  });

  it('relative sources become absolute against the declaring file; others stay', () => {
    const bundle = parseBundleText(
      'session:\n  orchestrator: {module: loop-basic, source: ./loop}\n  context: context-simple\ntools:\n  - {module: t, source: ../t}\n  - {module: u, source: git+https://h/o/r@main}\n',
      '/a/b/bundle.yaml',
    );
    expect((bundle.session.orchestrator as { source: string }).source).toBe('/a/b/loop');
    expect(bundle.tools.map((t) => t.source)).toEqual(['/a/t', 'git+https://h/o/r@main']);
  });

  it('a malformed module list names the field and the index', () => {
    expect(() => parseBundleText('tools: yes\n', '/x/a.yaml')).toThrow(BundleValidationError);
    expect(() => parseBundleText('tools:\n  - module: a\n  - just-a-string\n', '/x/a.yaml')).toThrow(
      /tools\[1\]/,
    );
    expect(() => parseBundleText('hooks:\n  - {module: a, config: 3}\n', '/x/a.yaml')).toThrow(
      /hooks\[0\]\.config/,
    );
  });

  it('agents: include names and inline agents; a string value gives an empty roster with a warning', () => {
    const bundle = parseBundleText('agents:\n  include: [ns:one]\n  two: {description: d}\n', '/x/a.yaml');
    expect(bundle.agents).toEqual({ 'ns:one': { name: 'ns:one' }, two: { description: 'd' } });
    const flat = parseBundleText('agents: all\n', '/x/a.yaml');
    expect(flat.agents).toEqual({});
    expect(flat.warnings.join()).toMatch(/agents/);
  });

  it('context: include refs and name: path; keys without ":" get the bundle name', () => {
    const bundle = parseBundleText(
      'bundle: {name: me}\ncontext:\n  include: [ns:context/a.md, local/b.md]\n  guide: docs/guide.md\n',
      '/r/bundle.yaml',
    );
    expect(bundle.context).toEqual([
      { key: 'ns:context/a.md', ref: 'ns:context/a.md', declaredIn: '/r/bundle.yaml' },
      { key: 'me:local/b.md', ref: 'local/b.md', declaredIn: '/r/bundle.yaml' },
      { key: 'me:guide', ref: 'docs/guide.md', declaredIn: '/r/bundle.yaml' },
    ]);
  });

  it('unknown top-level keys are warnings', () => {
    expect(parseBundleText('extra: 1\n', '/x/a.yaml').warnings).toEqual([
      "/x/a.yaml: 'extra' is not a bundle section (ignored)",
    ]);
  });
});

describe('files and folders', () => {
  it('in a folder bundle.md wins over bundle.yaml', () => {
    const dir = tempTree({
      'bundle.md': '---\nbundle: {name: md}\n---\n',
      'bundle.yaml': 'bundle: {name: yaml}\n',
    });
    expect(readBundleFile(dir).name).toBe('md');
  });

  it('a folder without a bundle file, another suffix, a missing path: clear errors', () => {
    const dir = tempTree({ 'notes.txt': 'x' });
    expect(() => readBundleFile(dir)).toThrow(BundleLoadError);
    expect(() => readBundleFile(path.join(dir, 'notes.txt'))).toThrow(/\.md, \.yaml or \.yml/);
    expect(() => readBundleFile(path.join(dir, 'nope.yaml'))).toThrow(BundleNotFoundError);
  });
});
