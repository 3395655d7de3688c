/**
 * Every bundle and behavior of the real-world sample (`__fixtures__/realworld`,
 * unchanged upstream files) loads: it composes into a plan, or it fails with a
 * message naming exactly what is missing and how to get it. Their
 * `git+https://github.com/...` includes cannot be fetched here (no network):
 * the last test supplies local copies through `sources`, as a user would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleFailure, REALWORLD, removeTempTrees, tempTree, writeTree } from './__fixtures__/files.js';
import { loadBundle } from './load.js';
import { buildSystemPrompt } from './mentions.js';
import { bundlePlanData, bundleToMountPlan } from './plan.js';

afterEach(removeTempTrees);

const file = (rel: string): string => path.join(REALWORLD, rel);

const failure = bundleFailure;

describe('real-world bundles that compose as they are', () => {
  it('foundation-bundles-minimal.yaml: a runnable plan, module ids and sources as written', async () => {
    const plan = bundleToMountPlan(await loadBundle(file('foundation-bundles-minimal.yaml')));
    expect(plan.session.orchestrator).toEqual({
      module: 'loop-basic',
      source: 'git+https://github.com/microsoft/amplifier-module-loop-basic@main',
    });
    expect(plan.tools?.map((t) => t.module)).toEqual(['tool-filesystem']);
    expect(plan.providers).toBeUndefined();
  });

  it('foundation-providers-anthropic-sonnet.yaml: a provider fragment (shown, not runnable alone)', async () => {
    const bundle = await loadBundle(file('foundation-providers-anthropic-sonnet.yaml'));
    expect(bundlePlanData(bundle)).toEqual({
      providers: [
        {
          module: 'provider-anthropic',
          source: 'git+https://github.com/microsoft/amplifier-module-provider-anthropic@main',
          config: { default_model: 'claude-sonnet-4-5', raw: true },
        },
      ],
    });
    expect(() => bundleToMountPlan(bundle)).toThrow(
      /has no session\.orchestrator and no session\.context: it is a behavior or a provider fragment/,
    );
  });

  it('foundation-behaviors-logging.yaml and behaviors/streaming-ui.yaml: behaviors with their hooks', async () => {
    const logging = bundlePlanData(await loadBundle(file('foundation-behaviors-logging.yaml')));
    expect(logging.hooks).toEqual([
      expect.objectContaining({
        module: 'hooks-logging',
        config: expect.objectContaining({ mode: 'session-only' }),
      }),
    ]);
    const ui = bundlePlanData(await loadBundle(file('behaviors/streaming-ui.yaml')));
    expect(ui.hooks).toEqual([expect.objectContaining({ module: 'hooks-streaming-ui' })]);
  });

  it('behaviors/agents.yaml: tools and context includes', async () => {
    const bundle = await loadBundle(file('behaviors/agents.yaml'));
    expect(bundle.tools.map((t) => t.module)).toEqual(['tool-delegate', 'tool-skills']);
    expect(bundle.context.map((c) => c.key)).toEqual([
      'foundation:context/agents/delegation-instructions.md',
      'foundation:context/agents/multi-agent-patterns.md',
    ]);
  });
});

describe('real-world bundles that need what this machine lacks: the message says what and how', () => {
  it('foundation-bundle.md: every git+https include is listed with the way to supply it, and so are missing behaviors', async () => {
    const error = await failure(loadBundle(file('foundation-bundle.md')));
    const text = error.message;
    expect(text).toMatch(/^Cannot load the bundle .*foundation-bundle\.md: \d+ includes failed:/);
    for (const url of [
      'git+https://github.com/microsoft/amplifier@main#subdirectory=behaviors/amplifier-expert.yaml',
      'git+https://github.com/microsoft/amplifier-bundle-python-dev@main',
      'git+https://github.com/microsoft/amplifier-bundle-context-intelligence@main#subdirectory=behaviors/context-intelligence-navigation.yaml',
    ]) {
      expect(text).toContain(`Cannot fetch ${url}`);
    }
    expect(text).toContain('no resolver takes git+https:// sources');
    expect(text).toContain("'foundation:behaviors/foundation-expert' is not in the namespace 'foundation'");
    // behaviors/sessions.yaml is there; the logging behavior it includes is not (the sample keeps it elsewhere).
    expect(text).toContain("includes 'foundation:behaviors/logging'");
  });

  it('foundation-bundles-with-anthropic.yaml: the bundle named foundation is what is missing', async () => {
    const error = await failure(
      loadBundle(file('foundation-bundles-with-anthropic.yaml'), { searchPaths: [tempTree()] }),
    );
    expect(error.message).toContain("No bundle named 'foundation'");
    expect(error.message).toContain(
      "The namespace 'foundation' of 'foundation:providers/anthropic-opus' is unknown",
    );
    // Registered to its repository, the message names the URL to fetch.
    const remote = await failure(
      loadBundle(file('foundation-bundles-with-anthropic.yaml'), {
        bundles: { foundation: 'git+https://github.com/microsoft/amplifier-foundation@main' },
      }),
    );
    expect(remote.message).toContain(
      'Cannot fetch git+https://github.com/microsoft/amplifier-foundation@main',
    );
  });

  it('behaviors/sessions.yaml and behaviors/redaction.yaml name the namespace or the URL they need', async () => {
    const sessions = await failure(loadBundle(file('behaviors/sessions.yaml')));
    expect(sessions.message).toContain(
      "The namespace 'foundation' of 'foundation:behaviors/logging' is unknown",
    );
    const redaction = await failure(loadBundle(file('behaviors/redaction.yaml')));
    expect(redaction.message).toContain(
      'Cannot fetch git+https://github.com/microsoft/amplifier-bundle-redaction@main#subdirectory=behaviors/redaction.yaml',
    );
  });

  it('bundles/anchors/bundle.md runs once its git sources are supplied as local copies', async () => {
    const anchors = file('bundles/anchors/bundle.md');
    expect((await failure(loadBundle(anchors))).problems).toHaveLength(6);

    // Local copies of the three repositories it includes from (the foundation ones are the sample's files).
    const foundation = tempTree({
      'bundle.md': fs.readFileSync(file('foundation-bundle.md'), 'utf8'),
      'behaviors/streaming-ui.yaml': fs.readFileSync(file('behaviors/streaming-ui.yaml'), 'utf8'),
      'behaviors/redaction.yaml': fs.readFileSync(file('behaviors/redaction.yaml'), 'utf8'),
      'behaviors/logging.yaml': fs.readFileSync(file('foundation-behaviors-logging.yaml'), 'utf8'),
      'behaviors/status-context.yaml':
        'bundle: {name: behavior-status-context}\nhooks: [{module: hooks-status-context}]\n',
    });
    const redaction = tempTree({
      'behaviors/redaction.yaml': 'bundle: {name: redaction}\nhooks: [{module: hooks-redaction}]\n',
    });
    const intelligence = tempTree();
    writeTree(intelligence, {
      'behaviors/context-intelligence-logging.yaml':
        'bundle: {name: ci-logging}\nhooks: [{module: hooks-ci}]\n',
      'behaviors/context-intelligence-navigation.yaml':
        'bundle: {name: ci-nav}\ntools: [{module: tool-ci}]\n',
    });
    const bundle = await loadBundle(anchors, {
      sources: {
        'git+https://github.com/microsoft/amplifier-foundation': foundation,
        'git+https://github.com/microsoft/amplifier-bundle-redaction': redaction,
        'git+https://github.com/microsoft/amplifier-bundle-context-intelligence': intelligence,
      },
    });
    const plan = bundleToMountPlan(bundle);
    expect(bundle.name).toBe('anchors');
    expect(plan.session.orchestrator).toEqual(expect.objectContaining({ module: 'loop-streaming' }));
    expect(plan.hooks?.map((h) => h.module)).toEqual([
      'hooks-streaming-ui',
      'hooks-status-context',
      'hooks-redaction',
      'hooks-deprecation',
      'hooks-logging',
      'hooks-ci',
      'hooks-todo-reminder',
      'hooks-todo-display',
      'hooks-session-naming',
      'hooks-mode',
      'hooks-approval',
    ]);
    expect(Object.keys(plan.agents ?? {})).toEqual([
      'anchors:explorer',
      'anchors:architect',
      'anchors:builder',
      'anchors:debugger',
      'anchors:git-ops',
      'anchors:researcher',
    ]);
    // The repository's root bundle (foundation) names the checkout, for @foundation: mentions.
    expect(bundle.namespaces.foundation).toBe(foundation);
    const prompt = (await buildSystemPrompt(bundle)) ?? '';
    expect(prompt.startsWith('# Anchors')).toBe(true);
    expect(prompt).toContain('<context_file paths="@anchors:context/system.md -> ');
    expect(prompt).toContain('You are Amplifier, an AI-powered Microsoft CLI tool');
  });
});
