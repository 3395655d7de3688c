/**
 * The dependency-rule check against small workspaces written to temp dirs: a clean one passes,
 * each kind of violation is reported, and this repository itself passes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkWorkspace, importsOf, isTestKitEntry, lowerBound } from './check-deps.mjs';

const dirs = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const core = {
  name: '@amplifier/core',
  version: '0.2.0',
  devDependencies: { '@amplifier/test-fixtures': 'workspace:^' },
};
const peerCore = { '@amplifier/core': 'workspace:>=0.2.0 <1.0.0' };
const devCore = { '@amplifier/core': 'workspace:^' };

/** A workspace with core, two kits, two test kits, two modules and a CLI; `change` edits it first. */
function workspace(change = () => {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'amp-deps-'));
  dirs.push(root);
  const files = {
    'packages/core/package.json': core,
    'packages/core/src/index.ts': "export { a } from './a.js';\n",
    'packages/core/src/a.test.ts': "import { waitFor } from '@amplifier/test-fixtures';\n",
    'packages/process/package.json': {
      name: '@amplifier/process',
      version: '0.1.0',
      peerDependencies: peerCore,
      devDependencies: devCore,
    },
    'packages/process/src/index.ts': "import { sleep } from '@amplifier/core';\n",
    'packages/provider-http/package.json': {
      name: '@amplifier/provider-http',
      version: '0.1.0',
      exports: { '.': './dist/index.js', './testing': './dist/testing/index.js' },
      peerDependencies: peerCore,
      devDependencies: { ...devCore, '@amplifier/testing': 'workspace:^' },
    },
    'packages/provider-http/src/index.ts': "import { LLMError } from '@amplifier/core';\n",
    'packages/provider-http/src/testing/index.ts':
      "import { describe } from 'vitest';\nimport { reply } from '../index.js';\n",
    'packages/testing/package.json': {
      name: '@amplifier/testing',
      version: '0.1.0',
      dependencies: { '@amplifier/test-fixtures': 'workspace:^' },
      peerDependencies: peerCore,
      devDependencies: devCore,
    },
    'packages/testing/src/index.ts':
      "export * from '@amplifier/test-fixtures';\nimport { Coordinator } from '@amplifier/core';\n",
    'packages/test-fixtures/package.json': { name: '@amplifier/test-fixtures', version: '0.1.0' },
    'packages/test-fixtures/src/index.ts': "import fs from 'node:fs';\n",
    'packages/cli/package.json': {
      name: '@amplifier/cli',
      version: '0.1.0',
      bin: { amplifier: './dist/bin.js' },
      dependencies: {
        '@amplifier/core': 'workspace:^',
        '@amplifier/testing': 'workspace:^',
        '@amplifier/tool-a': 'workspace:^',
      },
    },
    'packages/cli/src/modules.ts':
      "import { validateModule } from '@amplifier/testing/validation';\nimport '@amplifier/tool-a';\n",
    'modules/tool-a/package.json': {
      name: '@amplifier/tool-a',
      version: '0.1.0',
      amplifier: { module: 'tool-a', type: 'tool' },
      dependencies: { '@amplifier/process': 'workspace:^' },
      peerDependencies: peerCore,
      devDependencies: {
        ...devCore,
        '@amplifier/testing': 'workspace:^',
        '@amplifier/tool-b': 'workspace:^',
      },
    },
    'modules/tool-a/src/index.ts':
      "import { runInGroup } from '@amplifier/process';\nimport type { Tool } from '@amplifier/core';\n",
    'modules/tool-a/src/index.test.ts':
      "import { toolConformance } from '@amplifier/testing';\nimport { mount } from '@amplifier/tool-b';\n",
    'modules/tool-b/package.json': {
      name: '@amplifier/tool-b',
      version: '0.1.0',
      amplifier: { module: 'tool-b', type: 'tool' },
      peerDependencies: peerCore,
      devDependencies: devCore,
    },
    'modules/tool-b/src/index.ts':
      "// import { x } from '@amplifier/testing'; (a comment, not an import)\nexport const b = 1;\n",
    'bench/package.json': {
      name: '@amplifier/bench',
      private: true,
      dependencies: { '@amplifier/test-fixtures': 'workspace:^' },
    },
    'bench/src/loader.ts': "const { createLargeProject } = await import('@amplifier/test-fixtures');\n",
  };
  change(files);
  for (const [rel, content] of Object.entries(files)) {
    if (content === undefined) continue;
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  }
  return checkWorkspace(root);
}

function expectOne(problems, pattern) {
  assert.equal(problems.length, 1, `expected exactly one violation, got:\n${problems.join('\n')}`);
  assert.match(problems[0], pattern);
}

describe('checkWorkspace', () => {
  it('passes a workspace that keeps every rule', () => {
    assert.deepEqual(workspace(), []);
  });

  it('core depending on a kit (or a kit-using test)', () => {
    expectOne(
      workspace((f) => {
        f['packages/core/package.json'] = { ...core, dependencies: { '@amplifier/process': 'workspace:^' } };
      }),
      /core depends on @amplifier\/process/,
    );
    expectOne(
      workspace((f) => {
        f['packages/core/package.json'] = {
          ...core,
          devDependencies: { '@amplifier/testing': 'workspace:^' },
        };
        f['packages/core/src/a.test.ts'] = '';
      }),
      /core's tests use @amplifier\/testing/,
    );
  });

  it('a kit depending on a module, on kits in a cycle, or on core other than as a peer', () => {
    assert.deepEqual(
      workspace((f) => {
        f['packages/process/package.json'].dependencies = { '@amplifier/provider-http': 'workspace:^' };
      }),
      [],
    );
    const cyclic = workspace((f) => {
      f['packages/process/package.json'].dependencies = { '@amplifier/provider-http': 'workspace:^' };
      f['packages/provider-http/package.json'].dependencies = { '@amplifier/process': 'workspace:^' };
    });
    assert.ok(
      cyclic.some((p) =>
        /in a cycle: @amplifier\/process -> @amplifier\/provider-http -> @amplifier\/process/.test(p),
      ),
      cyclic.join('\n'),
    );
    expectOne(
      workspace((f) => {
        f['packages/process/package.json'].dependencies = { '@amplifier/tool-a': 'workspace:^' };
      }),
      /a kit depends on @amplifier\/tool-a \(module\)/,
    );
    expectOne(
      workspace((f) => {
        f['packages/process/package.json'].peerDependencies = { ...peerCore, '@amplifier/tool-a': '*' };
      }),
      /a kit depends on @amplifier\/tool-a \(peer\)/,
    );
    const problems = workspace((f) => {
      f['packages/process/package.json'] = {
        name: '@amplifier/process',
        version: '0.1.0',
        dependencies: devCore,
      };
    });
    assert.ok(
      problems.some((p) => /as a peer dependency, not a dependency/.test(p)),
      problems.join('\n'),
    );
  });

  it('a module depending on a module or on the app layer at run time', () => {
    expectOne(
      workspace((f) => {
        f['modules/tool-a/package.json'].dependencies = { '@amplifier/tool-b': 'workspace:^' };
        f['modules/tool-a/src/index.ts'] = "import '@amplifier/tool-b';\n";
      }),
      /a module depends on the module @amplifier\/tool-b/,
    );
    expectOne(
      workspace((f) => {
        f['modules/tool-b/package.json'].peerDependencies = { ...peerCore, '@amplifier/cli': '*' };
      }),
      /a module depends on @amplifier\/cli of the app layer/,
    );
  });

  it('production code importing a test kit, its own ./testing, or an undeclared package', () => {
    expectOne(
      workspace((f) => {
        f['modules/tool-a/src/index.ts'] += "import { MockTool } from '@amplifier/testing';\n";
        f['modules/tool-a/package.json'].dependencies['@amplifier/testing'] = 'workspace:^';
      }),
      /tool-a\/src\/index.ts: production code imports the test kit @amplifier\/testing$/,
    );
    expectOne(
      workspace((f) => {
        f['packages/cli/src/modules.ts'] +=
          "import { FakeLlmServer } from '@amplifier/provider-http/testing';\n";
        f['packages/cli/package.json'].dependencies['@amplifier/provider-http'] = 'workspace:^';
      }),
      /production code imports the test kit @amplifier\/provider-http\/testing/,
    );
    expectOne(
      workspace((f) => {
        f['packages/provider-http/src/index.ts'] += "export { reply } from './testing/index.js';\n";
      }),
      /production code imports its package's test kit/,
    );
    expectOne(
      workspace((f) => {
        f['modules/tool-b/src/index.ts'] += "const p = await import('@amplifier/process');\n";
      }),
      /imports @amplifier\/process, but @amplifier\/tool-b does not declare @amplifier\/process/,
    );
    expectOne(
      workspace((f) => {
        f['modules/tool-a/src/index.ts'] += "import { x } from '@amplifier/testing';\n";
        f['modules/tool-a/src/index.ts'] = f['modules/tool-a/src/index.ts'].replace(
          '@amplifier/testing',
          '@amplifier/test-fixtures',
        );
        f['modules/tool-a/package.json'].dependencies['@amplifier/test-fixtures'] = 'workspace:^';
      }),
      /production code imports the test kit @amplifier\/test-fixtures/,
    );
  });

  it('a relative import that leaves its package', () => {
    expectOne(
      workspace((f) => {
        f['packages/core/src/a.test.ts'] += "import { x } from '../../testing/src/index.js';\n";
      }),
      /imports \.\.\/\.\.\/testing\/src\/index\.js, outside its package/,
    );
  });

  it('a peer range of core that admits an older minor than core is', () => {
    const problems = workspace((f) => {
      f['modules/tool-b/package.json'].peerDependencies = { '@amplifier/core': 'workspace:>=0.1.0 <1.0.0' };
    });
    expectOne(
      problems,
      /tool-b: its @amplifier\/core peer range "workspace:>=0\.1\.0 <1\.0\.0" admits a core older than 0\.2\.0/,
    );
    expectOne(
      workspace((f) => {
        f['packages/process/package.json'].peerDependencies = { '@amplifier/core': '*' };
      }),
      /process: its @amplifier\/core peer range "\*" admits a core older than 0\.2\.0/,
    );
  });

  it('this repository keeps the rules', () => {
    const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
    assert.deepEqual(checkWorkspace(root), []);
  });
});

describe('importsOf and isTestKitEntry', () => {
  it('finds static, type-only, side-effect, re-export and dynamic imports, not comments', () => {
    const text = [
      "import a from 'a';",
      "import type { B } from 'b';",
      "import {\n  c,\n  d,\n} from 'c';",
      "import 'side';",
      "export * from 'star';",
      "export { e } from 'named';",
      "const f = await import('dynamic');",
      "// import { g } from 'commented';",
      "/* import { h } from 'block'; */",
    ].join('\n');
    assert.deepEqual(importsOf(text).sort(), ['a', 'b', 'c', 'dynamic', 'named', 'side', 'star']);
  });

  it('reads the lower bound of a range', () => {
    assert.deepEqual(lowerBound('workspace:>=0.2.0 <1.0.0'), [0, 2, 0]);
    assert.deepEqual(lowerBound('^0.3.1'), [0, 3, 1]);
    assert.deepEqual(lowerBound('~1.2.3'), [1, 2, 3]);
    assert.deepEqual(lowerBound('0.2.0'), [0, 2, 0]);
    assert.equal(lowerBound('*'), undefined);
  });

  it('knows the test kit entry points', () => {
    assert.equal(isTestKitEntry('@amplifier/testing'), true);
    assert.equal(isTestKitEntry('@amplifier/testing/validation'), false);
    assert.equal(isTestKitEntry('@amplifier/test-fixtures'), true);
    assert.equal(isTestKitEntry('@amplifier/provider-http/testing'), true);
    assert.equal(isTestKitEntry('@amplifier/provider-http'), false);
    assert.equal(isTestKitEntry('@amplifier/process/shell'), false);
  });
});
