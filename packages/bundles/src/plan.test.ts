import { AmplifierSession, type ContextManager, type Message, validateMountPlan } from '@amplifier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempTrees, tempTree, writeTree } from './__fixtures__/files.js';
import { BundleValidationError } from './errors.js';
import { applySystemPrompt } from './instructions.js';
import { loadBundle } from './load.js';
import { buildSystemPrompt } from './mentions.js';
import { bundlePlanData, bundleToMountPlan } from './plan.js';

afterEach(removeTempTrees);

const RUNNABLE = `bundle: {name: r}
session:
  orchestrator: {module: loop-basic, config: {max_iterations: 3}}
  context: context-simple
  raw: true
providers:
  - {id: fast, module: provider-mock, config: {responses: [hi]}}
tools:
  - {id: fs, module: tool-filesystem, source: ./local-fs}
agents:
  include: [r:helper]
spawn: {exclude_tools: [tool-bash]}
`;

describe('bundleToMountPlan', () => {
  it('the plan core accepts: session kept, ids dropped (a provider id becomes instance_id), agents passed through', async () => {
    const dir = tempTree({ 'bundle.yaml': RUNNABLE });
    const plan = bundleToMountPlan(await loadBundle(dir));
    expect(Object.isFrozen(plan)).toBe(true);
    expect(plan).toEqual({
      session: {
        orchestrator: { module: 'loop-basic', config: { max_iterations: 3 } },
        context: 'context-simple',
        raw: true,
      },
      providers: [{ module: 'provider-mock', instance_id: 'fast', config: { responses: ['hi'] } }],
      tools: [{ module: 'tool-filesystem', source: `${dir}/local-fs` }],
      agents: { 'r:helper': { name: 'r:helper' } },
    });
    expect(validateMountPlan(plan).warnings).toEqual([]);
    // A session takes it as it is.
    expect(new AmplifierSession(plan).config).toBe(plan);
  });

  it('keys core does not know stay in the plan, for its validator to warn about', async () => {
    const dir = tempTree({ 'bundle.yaml': `${RUNNABLE}hooks:\n  - {module: hooks-logging, priority: 3}\n` });
    const plan = bundleToMountPlan(await loadBundle(dir));
    expect(validateMountPlan(plan).warnings).toEqual([
      { path: 'hooks[0].priority', message: 'is not a known key (ignored)' },
    ]);
  });

  it('a behavior is shown but not runnable; an invalid plan lists its problems with JSON paths', async () => {
    const behavior = await loadBundle(`${tempTree({ 'b.yaml': 'tools: [{module: t}]\n' })}/b.yaml`);
    expect(bundlePlanData(behavior)).toEqual({ tools: [{ module: 't' }] });
    expect(() => bundleToMountPlan(behavior)).toThrow(BundleValidationError);
    const bad = tempTree({
      'bundle.yaml':
        'session: {orchestrator: loop-basic, context: context-simple, injection_size_limit: -1}\n',
    });
    await expect(loadBundle(bad).then(bundleToMountPlan)).rejects.toThrow(
      /session\.injection_size_limit must be >= 0/,
    );
  });
});

describe('applySystemPrompt', () => {
  const messages: Message[] = [];
  const plain: ContextManager = {
    addMessage: async (m) => {
      messages.push(m);
    },
    getMessagesForRequest: async () => messages,
    getMessages: async () => messages,
    setMessages: async () => {},
    clear: async () => {},
  };

  it('a context with a system prompt factory gets a factory that sees edited files on later requests', async () => {
    const dir = tempTree({ 'bundle.md': 'Be kind. @notes.md', 'notes.md': 'v1' });
    const bundle = await loadBundle(dir);
    let factory: (() => string | Promise<string>) | null = null;
    const withFactory = {
      ...plain,
      setSystemPromptFactory: async (f: typeof factory) => {
        factory = f;
      },
    };
    expect(await applySystemPrompt(withFactory, () => buildSystemPrompt(bundle))).toBe('factory');
    expect(await factory!()).toContain('v1');
    writeTree(dir, { 'notes.md': 'v2' });
    expect(await factory!()).toContain('v2');
  });

  it('another context gets one system message; nothing to say: nothing added', async () => {
    const bundle = await loadBundle(tempTree({ 'bundle.md': 'Be kind.' }));
    expect(await applySystemPrompt(plain, () => buildSystemPrompt(bundle))).toBe('message');
    expect(messages).toEqual([{ role: 'system', content: 'Be kind.' }]);
    expect(await applySystemPrompt(plain, async () => undefined)).toBe('none');
    expect(messages).toHaveLength(1);
  });
});
