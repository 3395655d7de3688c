import { describe, expect, it } from 'vitest';
import { compose, deepMerge } from './compose.js';
import { type BundleData, parseBundleText } from './parse.js';

const yaml = (text: string, file = '/b/bundle.yaml'): BundleData => parseBundleText(text, file);

describe('compose: the reference merge rules (A5), later wins', () => {
  it('name, version, description: the later non-empty value', () => {
    const a = yaml('bundle: {name: a, version: 1.2.0, description: first}\n');
    const b = yaml('bundle: {name: b}\n');
    const c = compose(a, b);
    expect(c.name).toBe('b');
    expect(c.description).toBe('first');
    expect(compose(a, yaml('bundle: {name: ""}\n')).name).toBe('a');
  });

  it('session and spawn deep-merge: scalars replaced, lists concatenated without duplicates (parent first)', () => {
    const a = yaml(
      'session:\n  orchestrator: {module: loop-basic, config: {max_iterations: 5, tags: [x, y]}}\nspawn: {exclude_tools: [tool-a]}\n',
    );
    const b = yaml(
      'session:\n  orchestrator: {config: {max_iterations: 9, tags: [y, z]}}\n  raw: true\nspawn: {exclude_tools: [tool-b, tool-a]}\n',
    );
    const c = compose(a, b);
    expect(c.session).toEqual({
      orchestrator: { module: 'loop-basic', config: { max_iterations: 9, tags: ['x', 'y', 'z'] } },
      raw: true,
    });
    expect(c.spawn).toEqual({ exclude_tools: ['tool-a', 'tool-b'] });
  });

  it('lists of mappings de-duplicate by value, whatever the key order', () => {
    expect(deepMerge([{ a: 1, b: 2 }], [{ b: 2, a: 1 }, { a: 3 }])).toEqual([{ a: 1, b: 2 }, { a: 3 }]);
    expect(deepMerge([1, '1'], ['1', 1, 2])).toEqual([1, '1', 2]);
  });

  it('changing session.orchestrator.module keeps the old config keys (edge)', () => {
    const a = yaml('session:\n  orchestrator: {module: loop-basic, config: {extended_thinking: true}}\n');
    const b = yaml('session:\n  orchestrator: {module: loop-streaming}\n');
    expect(compose(a, b).session.orchestrator).toEqual({
      module: 'loop-streaming',
      config: { extended_thinking: true },
    });
  });

  it('modules merge by id (else module): config deep-merged, source replaced, new ids appended', () => {
    const a = yaml(
      'tools:\n  - {module: tool-bash, source: s1, config: {timeout: 5, deny: [rm]}}\n  - {module: tool-web}\n',
    );
    const b = yaml(
      'tools:\n  - {module: tool-bash, source: s2, config: {deny: [sudo]}}\n  - {module: tool-x}\n',
    );
    expect(compose(a, b).tools).toEqual([
      { module: 'tool-bash', source: 's2', config: { timeout: 5, deny: ['rm', 'sudo'] } },
      { module: 'tool-web' },
      { module: 'tool-x' },
    ]);
    // No new source: the earlier one stays.
    expect(compose(a, yaml('tools:\n  - {module: tool-bash}\n')).tools[0]?.source).toBe('s1');
  });

  it('an explicit id is the merge key: two instances of one module stay apart', () => {
    const a = yaml('providers:\n  - {id: fast, module: provider-openai, config: {model: a}}\n');
    const b = yaml(
      'providers:\n  - {id: smart, module: provider-openai}\n  - {id: fast, module: provider-openai, config: {temperature: 0}}\n',
    );
    expect(compose(a, b).providers).toEqual([
      { id: 'fast', module: 'provider-openai', config: { model: 'a', temperature: 0 } },
      { id: 'smart', module: 'provider-openai' },
    ]);
  });

  it('entries with no id and no module are dropped (edge)', () => {
    const a = yaml('hooks:\n  - {config: {x: 1}}\n  - {module: hooks-logging}\n');
    expect(compose(a, yaml('{}')).hooks).toEqual([{ module: 'hooks-logging' }]);
  });

  it('agents: the same name replaces the earlier agent whole', () => {
    const a = yaml('agents:\n  helper: {description: old, tools: [x]}\n  other: {description: o}\n');
    const b = yaml('agents:\n  helper: {description: new}\n');
    expect(compose(a, b).agents).toEqual({ helper: { description: 'new' }, other: { description: 'o' } });
  });

  it('context accumulates (the same key: the later path); the last instruction wins', () => {
    const a = parseBundleText('---\nbundle: {name: a}\ncontext: {guide: g.md}\n---\nA body', '/a/bundle.md');
    const b = parseBundleText(
      '---\nbundle: {name: b}\ncontext: {include: [x:y.md]}\n---\nB body',
      '/b/bundle.md',
    );
    const c = compose(a, b);
    expect(c.context.map((e) => e.key)).toEqual(['a:guide', 'x:y.md']);
    expect(c.instruction).toBe('B body');
    expect(c.basePath).toBe('/b');
    expect(compose(b, yaml('bundle: {name: c}\n')).instruction).toBe('B body');
  });
});
