/** Agent files (B1): front matter, body as instruction, rosters filled from `agents/<name>.md`. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REALWORLD, removeTempTrees, tempTree } from './__fixtures__/files.js';
import { loadAgentDir, parseAgentText, readAgentFile, resolveAgents } from './agents.js';
import { BundleError } from './errors.js';
import { readBundleFile } from './parse.js';

afterEach(removeTempTrees);

describe('agent files', () => {
  it('reads meta, the overlay keys and the body as the instruction', () => {
    const agent = parseAgentText(
      [
        '\uFEFF---',
        'meta:',
        '  name: reviewer',
        '  description: Reviews code.',
        '  colour: blue',
        'model_role: [reasoning, general]',
        'provider_preferences:',
        '  - { provider: anthropic, model: claude-haiku-* }',
        'tools:',
        '  - module: tool-filesystem',
        '    source: ./modules/fs',
        'session:',
        '  orchestrator: { config: { max_iterations: 3 } }',
        'agents: none',
        '---',
        '',
        '# Reviewer',
        '',
        'You review code.',
        '',
      ].join('\n'),
      '/srv/agents/reviewer.md',
    );
    expect(agent.name).toBe('reviewer');
    expect(agent.description).toBe('Reviews code.');
    expect(agent.meta.colour).toBe('blue');
    expect(agent.instruction).toBe('# Reviewer\n\nYou review code.');
    expect(agent.model_role).toEqual(['reasoning', 'general']);
    expect(agent.provider_preferences).toEqual([{ provider: 'anthropic', model: 'claude-haiku-*' }]);
    expect(agent.tools).toEqual([{ module: 'tool-filesystem', source: '/srv/agents/modules/fs' }]);
    expect(agent.session).toEqual({ orchestrator: { config: { max_iterations: 3 } } });
    expect(agent.agents).toBe('none');
  });

  it('accepts flat name and description, and names an unnamed agent after its file', () => {
    expect(parseAgentText('---\nname: flat\ndescription: d\n---\nbody', '/a/x.md')).toMatchObject({
      name: 'flat',
      description: 'd',
      instruction: 'body',
    });
    expect(parseAgentText('Just a body.', '/a/plain.md')).toMatchObject({
      name: 'plain',
      instruction: 'Just a body.',
    });
  });

  it('refuses a bad agents value, ignores a mapping, reports a malformed tool list', () => {
    expect(() => parseAgentText('---\nagents: some\n---\n', '/a/x.md')).toThrow(
      /agents: write 'all', 'none'/,
    );
    expect(() => parseAgentText('---\nagents: 3\n---\n', '/a/x.md')).toThrow(BundleError);
    expect(parseAgentText('---\nagents: { a: 1 }\n---\n', '/a/x.md').agents).toBeUndefined();
    expect(parseAgentText('---\nagents: [a, b]\n---\n', '/a/x.md').agents).toEqual(['a', 'b']);
    expect(() => parseAgentText('---\ntools: tool-bash\n---\n', '/a/x.md')).toThrow(/malformed tools/);
    expect(() => parseAgentText('---\nmeta: [\n---\n', '/a/x.md')).toThrow(/x\.md/);
  });

  it("reads the reference's own agent files unchanged", () => {
    const dir = path.join(REALWORLD, 'agents');
    for (const name of fs.readdirSync(dir)) {
      const agent = readAgentFile(path.join(dir, name));
      expect(agent.name).toBe(name.replace(/\.md$/, ''));
      expect(agent.description).toMatch(/agent/i);
      if (name !== 'explorer') expect(agent.description).toContain('<example>');
      expect(agent.instruction).toMatch(/^# /);
      expect(agent.tools?.length).toBeGreaterThan(0);
      expect(agent.provider_preferences?.[0]?.provider).toBe('anthropic');
    }
    const { agents, problems } = loadAgentDir(dir);
    expect(problems).toEqual([]);
    expect(Object.keys(agents).sort()).toEqual(['explorer', 'file-ops', 'web-research']);
  });

  it('an agent folder: a broken file is reported and the others load; a missing folder has none', () => {
    const dir = tempTree({
      'good.md': '---\nmeta: { name: good, description: ok }\n---\nHi',
      'bad.md': '---\nagents: 7\n---\n',
    });
    const { agents, problems } = loadAgentDir(dir);
    expect(Object.keys(agents)).toEqual(['good']);
    expect(problems[0]).toMatch(/bad\.md/);
    expect(loadAgentDir(path.join(dir, 'nope'))).toEqual({ agents: {}, problems: [] });
  });
});

describe('rosters', () => {
  it("fills the anchors bundle's agents.include from its agents folder", () => {
    // The anchors bundle includes git sources that cannot be fetched here: its own file is enough.
    const data = readBundleFile(path.join(REALWORLD, 'bundles/anchors/bundle.md'));
    const { agents, warnings } = resolveAgents({
      agents: data.agents,
      namespaces: { anchors: data.basePath },
      basePath: data.basePath,
    });
    expect(warnings).toEqual([]);
    expect(Object.keys(agents)).toContain('anchors:explorer');
    const builder = agents['anchors:builder'];
    expect(builder?.name).toBe('anchors:builder');
    expect(builder?.meta.name).toBe('builder');
    expect(builder?.instruction).toMatch(/^# Builder/);
    expect(builder?.tools?.map((t) => t.module)).toContain('tool-bash');
  });

  it('inline roster values win over the file; a missing file is a warning', () => {
    const dir = tempTree({
      'agents/helper.md': '---\nmeta: { name: helper, description: from file }\n---\nFile body',
    });
    const { agents, warnings } = resolveAgents({
      agents: { helper: { description: 'inline' }, ghost: { name: 'ghost' } },
      namespaces: {},
      basePath: dir,
    });
    expect(agents.helper).toMatchObject({ name: 'helper', description: 'inline', instruction: 'File body' });
    expect(warnings[0]).toMatch(/ghost.*agents\/ghost\.md/);
  });
});
