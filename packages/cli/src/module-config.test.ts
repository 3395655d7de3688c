/**
 * Every module the CLI ships reads its config through own properties only
 * (issue: a `__proto__` key in a plan turned tool-bash's safety off). Each
 * module is imported and mounted the way an app that imports it directly
 * would, with a config whose prototype records every read that reaches it.
 * (What own `__proto__` keys in a plan file do is tested end to end in
 * plan.test.ts; each module tests its own safe defaults.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Coordinator, type ModuleInfo, ModuleLoader } from '@amplifier/core';
import { createTestCoordinator } from '@amplifier/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './__fixtures__/cli.js';

const CLI_DIR = fileURLToPath(new URL('../', import.meta.url));

/** Names any object answers through Object.prototype (reading them is not reading config). */
const OBJECT_METHODS = new Set(Object.getOwnPropertyNames(Object.prototype));

/** A config whose prototype records the string keys read through it (and answers like an empty object). */
function tripwireConfig(reads: string[]): Record<string, unknown> {
  const wire = new Proxy(Object.create(null) as object, {
    get(_target, key) {
      if (typeof key === 'string' && !OBJECT_METHODS.has(key)) reads.push(key);
      return typeof key === 'string' && OBJECT_METHODS.has(key)
        ? (Object.prototype as Record<string, unknown>)[key]
        : undefined;
    },
    has(_target, key) {
      if (typeof key === 'string' && !OBJECT_METHODS.has(key)) reads.push(`in:${key}`);
      return false;
    },
  });
  return Object.create(wire) as Record<string, unknown>;
}

let modules: ModuleInfo[] = [];
let home: string;

async function mountModule(info: ModuleInfo, config: Record<string, unknown>): Promise<void> {
  // By package name: the test runs against the modules' sources (the `@amplifier/source` condition).
  const exported = (await import(info.name)) as {
    mount(c: Coordinator, config: Record<string, unknown>): Promise<unknown>;
  };
  const coordinator = createTestCoordinator();
  coordinator.registerCapability('session.working_dir', home);
  try {
    coordinator.registerCleanup(await exported.mount(coordinator, config));
  } catch {
    // Refusing the config is fine; reading through its prototype is not.
  }
  await coordinator.cleanup().catch(() => {});
}

beforeAll(async () => {
  home = tempDir('amp-own-config-');
  process.env.AMPLIFIER_HOME = home;
  modules = await new ModuleLoader({ baseDir: CLI_DIR, searchPaths: [] }).discover();
});
afterAll(() => {
  delete process.env.AMPLIFIER_HOME;
  removeTempDirs();
});

describe('every shipped module reads its config through own properties only', () => {
  it('the walk covers every module the CLI depends on', () => {
    const deps = Object.keys(
      JSON.parse(fs.readFileSync(path.join(CLI_DIR, 'package.json'), 'utf8')).dependencies,
    );
    // Modules are the @amplifier/ dependencies with an "amplifier" field; kits have none.
    const expected = deps.filter(
      (d) =>
        d.startsWith('@amplifier/') &&
        JSON.parse(fs.readFileSync(path.join(CLI_DIR, 'node_modules', d, 'package.json'), 'utf8'))
          .amplifier !== undefined,
    );
    expect(modules.map((m) => m.name).sort()).toEqual(expected.sort());
    expect(modules.length).toBeGreaterThanOrEqual(11);
  });

  it("mount(coordinator, config) never reads a key through the config's prototype", async () => {
    const inherited: Record<string, string[]> = {};
    for (const info of modules) {
      const reads: string[] = [];
      await mountModule(info, tripwireConfig(reads));
      if (reads.length > 0) inherited[info.id] = [...new Set(reads)];
    }
    expect(inherited).toEqual({});
  });
});
