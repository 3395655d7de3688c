import { validateModule } from '../../validation/index.js';

export async function checkHello(projectDir: string) {
  // A path, a package name or a module id; the type comes from package.json unless given.
  const result = await validateModule('./node_modules/amplifier-module-hello', { baseDir: projectDir });
  result.passed; // true: no check of severity 'error' failed
  result.summary(); // 'PASSED: 15/15 checks passed (0 errors, 0 warnings)'
  result.report(); // the summary, then one line per check: '✓ tool_execute_empty_input: ...', or '✗ [error] name: ...' for a failure

  const broken = await validateModule('hello', { baseDir: projectDir, type: 'provider' });
  broken.errors; // [{ name: 'module_type', passed: false, severity: 'error', message: "the package declares type 'tool' ..." }]
  return { result, broken };
}
