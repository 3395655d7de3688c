/**
 * Bad input never crashes: whatever a bundle file holds, loading it either
 * works or throws a BundleError that names the file (never a TypeError).
 */
import fs from 'node:fs';
import path from 'node:path';
import { nestedJson } from '@amplifier/test-fixtures';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempTrees, tempTree } from './__fixtures__/files.js';
import { BundleError } from './errors.js';
import { loadBundle } from './load.js';
import { buildSystemPrompt } from './mentions.js';
import { bundlePlanData, bundleToMountPlan } from './plan.js';

afterEach(removeTempTrees);

const SECTIONS = [
  'bundle',
  'includes',
  'session',
  'providers',
  'tools',
  'hooks',
  'spawn',
  'agents',
  'context',
];

async function outcome(file: string): Promise<'ok' | 'bundle-error'> {
  try {
    const bundle = await loadBundle(file);
    bundlePlanData(bundle);
    await buildSystemPrompt(bundle);
    try {
      bundleToMountPlan(bundle);
    } catch (error) {
      if (!BundleError.is(error)) throw error;
    }
    return 'ok';
  } catch (error) {
    if (BundleError.is(error)) return 'bundle-error';
    throw error;
  }
}

describe('hostile bundles', () => {
  it('random values in every section: loaded, or a BundleError', async () => {
    const dir = tempTree();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(...SECTIONS, '__proto__', 'constructor'),
          fc.jsonValue({ maxDepth: 4 }),
        ),
        async (data) => {
          const file = path.join(dir, `b${n++}.yaml`);
          fs.writeFileSync(file, JSON.stringify(data));
          expect(['ok', 'bundle-error']).toContain(await outcome(file));
        },
      ),
      { numRuns: 200, seed: 19 },
    );
  });

  it('nesting deeper than the data limit, several YAML documents, a list, bad front matter: BundleErrors naming the file', async () => {
    const dir = tempTree({
      'deep.yaml': `session: ${nestedJson(5000)}\n`,
      'multi.yaml': 'bundle: {name: a}\n---\nbundle: {name: b}\n',
      'list.yaml': '- a\n- b\n',
      'bad.md': '---\nbundle: [unclosed\n---\nbody\n',
    });
    for (const name of ['deep.yaml', 'multi.yaml', 'list.yaml', 'bad.md']) {
      const file = path.join(dir, name);
      await expect(loadBundle(file)).rejects.toSatisfy((e) => BundleError.is(e) && e.message.includes(file));
    }
  });
});
