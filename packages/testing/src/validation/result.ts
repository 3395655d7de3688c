/**
 * The outcome of validating a module: a list of named checks, each passed or
 * failed with a severity. Only a failed `error` check fails the module.
 */
import { ModuleValidationError } from '@amplifier/core';

export type ValidationSeverity = 'error' | 'warning' | 'info';

/** One check: `{name, passed, message, severity}` (JSON-able). */
export interface ValidationCheck {
  name: string;
  passed: boolean;
  message: string;
  severity: ValidationSeverity;
}

export class ValidationResult {
  /** The type the module was validated as (undefined when it could not be told). */
  moduleType: string | undefined;
  /** What was validated: the path or id given. */
  readonly target: string;
  readonly checks: ValidationCheck[] = [];

  constructor(target: string, moduleType?: string) {
    this.target = target;
    this.moduleType = moduleType;
  }

  /** Record a check (returns it, for chaining in tests). */
  add(check: ValidationCheck): ValidationCheck {
    this.checks.push(check);
    return check;
  }

  pass(name: string, message: string, severity: ValidationSeverity = 'error'): void {
    this.add({ name, passed: true, message, severity });
  }

  fail(name: string, message: string, severity: ValidationSeverity = 'error'): void {
    this.add({ name, passed: false, message, severity });
  }

  /** True when no error check failed (warnings and infos never fail a module). An empty result passes. */
  get passed(): boolean {
    return this.errors.length === 0;
  }

  /** Failed checks of severity error. */
  get errors(): ValidationCheck[] {
    return this.checks.filter((c) => !c.passed && c.severity === 'error');
  }

  /** Failed checks of severity warning. */
  get warnings(): ValidationCheck[] {
    return this.checks.filter((c) => !c.passed && c.severity === 'warning');
  }

  /** `PASSED: 12/13 checks passed (0 errors, 1 warnings)`. */
  summary(): string {
    const ok = this.checks.filter((c) => c.passed).length;
    return `${this.passed ? 'PASSED' : 'FAILED'}: ${ok}/${this.checks.length} checks passed (${this.errors.length} errors, ${this.warnings.length} warnings)`;
  }

  /**
   * A readable report: what was validated, the summary, then one line per check
   * (`✓ name: message` for a pass, `✗ [severity] name: message` for a failure:
   * a severity beside a pass read like an error; continuation lines indented).
   */
  report(): string {
    const lines = [`Validating ${this.moduleType ?? 'unknown'} module: ${this.target}`, this.summary(), ''];
    for (const check of this.checks) {
      const [first, ...rest] = check.message.split('\n');
      const mark = check.passed ? '✓' : `✗ [${check.severity}]`;
      lines.push(`${mark} ${check.name}: ${first ?? ''}`);
      for (const line of rest) lines.push(`      ${line}`);
    }
    return lines.join('\n');
  }

  /**
   * Throw a `ModuleValidationError` (code `MODULE_VALIDATION_FAILED`) naming every
   * failed error check when the module did not pass; for apps that refuse to load such a module.
   */
  assertPassed(moduleId: string = this.target): void {
    if (this.passed) return;
    const details = this.errors.map((c) => `${c.name}: ${c.message}`).join('; ');
    throw new ModuleValidationError(
      moduleId,
      `Module '${moduleId}' failed validation: ${this.summary()}. Errors: ${details}`,
    );
  }

  toJSON(): {
    target: string;
    module_type: string | null;
    passed: boolean;
    summary: string;
    checks: ValidationCheck[];
  } {
    return {
      target: this.target,
      module_type: this.moduleType ?? null,
      passed: this.passed,
      summary: this.summary(),
      checks: this.checks.map((c) => ({ ...c })),
    };
  }
}
