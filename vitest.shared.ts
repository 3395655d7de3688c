/**
 * Shared vitest settings for every workspace package. Each package has its own
 * `vitest.config.ts` that calls `packageTestConfig()`, so `vitest run` works from
 * inside the package and turbo can run one package's tests on its own.
 *
 * The `@amplifier/source` export condition makes tests import workspace
 * packages (for example `@amplifier/core`) from their TypeScript sources, so a
 * module's tests see core's current code without a build step in between. The
 * published packages keep the same condition pointing at the shipped `src/`.
 */
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

const conditions = ['@amplifier/source'];

export function packageTestConfig(overrides: UserWorkspaceConfig['test'] = {}): UserWorkspaceConfig {
  return defineProject({
    resolve: { conditions: [...conditions, 'module', 'node', 'import', 'default'] },
    ssr: {
      resolve: { conditions: [...conditions, 'node', 'import', 'default'], externalConditions: conditions },
    },
    test: {
      include: ['src/**/*.test.ts'],
      environment: 'node',
      testTimeout: 60_000,
      hookTimeout: 60_000,
      ...overrides,
    },
  });
}
