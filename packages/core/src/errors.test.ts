import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import {
  AmplifierError,
  ApprovalTimeoutError,
  CancelledError,
  type CodesOf,
  DataValidationError,
  defineErrors,
  ERROR_CODES,
  errorMessage,
  errorType,
  isFatalError,
  ModuleLoadError,
  ModuleNotFoundError,
  ModuleValidationError,
  MountPlanError,
} from './errors.js';
import * as core from './index.js';
import { createLLMError, LLM_ERROR_KINDS } from './llm-errors.js';

const SRC = path.dirname(fileURLToPath(import.meta.url));
/** Core's own codes (`ErrorCode` also has those the tests below declare). */
type KernelCode = keyof typeof ERROR_CODES;
const CODES = Object.keys(ERROR_CODES) as KernelCode[];

/** One error of every class core exports, with every code each class is thrown with. */
function oneOfEach(): AmplifierError[] {
  return [
    new AmplifierError('MOUNT_FAILED', 'm'),
    new ModuleNotFoundError('tool-x', 'not found'),
    new ModuleLoadError('tool-x', 'bad import'),
    new ModuleLoadError('tool-x', 'bad manifest', { code: 'MODULE_INVALID_MANIFEST' }),
    new ModuleLoadError('tool-x', 'wrong type', { code: 'MODULE_INCOMPATIBLE' }),
    new ModuleValidationError('tool-x', 'failed validation'),
    new MountPlanError('bad plan', []),
    new DataValidationError('bad data', []),
    new ApprovalTimeoutError(),
    new CancelledError(),
    ...LLM_ERROR_KINDS.map((kind) => createLLMError(kind, 'm')),
  ];
}

/** The codes of the README's "Errors" table, with the class each row names. */
function readmeErrorRows(): Map<string, string> {
  const readme = readFileSync(path.join(SRC, '../README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('\n## Errors\n'),
    readme.indexOf('\n## ', readme.indexOf('\n## Errors\n') + 1),
  );
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const code = /^`([A-Z][A-Z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (code === undefined) continue;
    expect(rows.has(code), `README lists ${code} twice`).toBe(false);
    rows.set(code, /^`(\w+)`$/.exec(cells[2] ?? '')?.[1] ?? `unreadable class cell: ${cells[2]}`);
  }
  return rows;
}

/** Every code core's own sources throw with (`new AmplifierError('X'`, `super('X'`, `code: 'X'`, `?? 'X'`). */
function codesThrownInCore(): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '__fixtures__') walk(file);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(
          /(?:new AmplifierError\(|super\(|code: |\?\? )\s*'([A-Z][A-Z_]+)'/g,
        )) {
          found.add(match[1] as string);
        }
      }
    }
  };
  walk(SRC);
  return found;
}

describe('ERROR_CODES', () => {
  it('is frozen, rows included, and every row has a class name and a one-line description', () => {
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
    for (const code of CODES) {
      const row = ERROR_CODES[code];
      expect(Object.isFrozen(row), code).toBe(true);
      expect(row.name, code).toMatch(/^[A-Z]\w*Error$/);
      expect(row.description, code).toMatch(/^\S.*\S$/);
      expect(row.description, code).not.toContain('\n');
    }
  });

  it('covers the code of every error class, and names the class (or a base class) of each', () => {
    for (const error of oneOfEach()) {
      expect(CODES, error.name).toContain(error.code);
      const Class = (core as unknown as Record<string, unknown>)[ERROR_CODES[error.code as KernelCode].name];
      expect(typeof Class, ERROR_CODES[error.code as KernelCode].name).toBe('function');
      expect(error, error.name).toBeInstanceOf(Class as new () => unknown);
    }
  });

  it('every row names a class core exports, which is AmplifierError or one of its subclasses', () => {
    for (const code of CODES) {
      const Class = (core as unknown as Record<string, unknown>)[ERROR_CODES[code].name];
      expect(typeof Class, ERROR_CODES[code].name).toBe('function');
      const prototype = (Class as { prototype: unknown }).prototype;
      expect(prototype === AmplifierError.prototype || prototype instanceof AmplifierError, code).toBe(true);
    }
  });

  it('lists exactly the codes core throws', () => {
    expect([...codesThrownInCore()].sort()).toEqual([...CODES].sort());
  });

  it('is the README\'s "Errors" table: the same codes, each with the same class', () => {
    const readme = readmeErrorRows();
    expect([...readme.keys()].sort()).toEqual([...CODES].sort());
    for (const code of CODES) expect(readme.get(code), code).toBe(ERROR_CODES[code].name);
  });

  it('default messages come from the table and are unchanged', () => {
    expect(new ApprovalTimeoutError().message).toBe(ERROR_CODES.APPROVAL_TIMEOUT.message);
    expect(new ApprovalTimeoutError().message).toBe('Approval request timed out');
    expect(new CancelledError().message).toBe(ERROR_CODES.CANCELLED.message);
    expect(new CancelledError().message).toBe('Operation cancelled');
  });

  it('a misspelt code does not compile', () => {
    // @ts-expect-error: not a code of ERROR_CODES
    expect(new AmplifierError('MOUNT_FAIL', 'x').code).toBe('MOUNT_FAIL');
    // @ts-expect-error: not a code of ERROR_CODES
    expect(AmplifierError.is(new CancelledError(), 'CANCELED')).toBe(false);
  });
});

describe('AmplifierError.is(value, code?)', () => {
  it('is true for every kernel error, and with a code only for errors of that code', () => {
    for (const error of oneOfEach()) {
      expect(AmplifierError.is(error), error.name).toBe(true);
      expect(AmplifierError.is(error, error.code), error.name).toBe(true);
      for (const code of CODES) {
        if (code !== error.code) expect(AmplifierError.is(error, code), `${error.name} ${code}`).toBe(false);
      }
    }
  });

  it('rejects everything that is not a kernel error, with or without a code', () => {
    const others: unknown[] = [
      new Error('x'),
      Object.assign(new Error('x'), { code: 'CANCELLED' }),
      { code: 'CANCELLED', name: 'CancelledError', message: 'x' },
      new DOMException('x', 'AbortError'),
      'CANCELLED',
      42,
      null,
      undefined,
    ];
    for (const value of others) {
      expect(AmplifierError.is(value), String(value)).toBe(false);
      expect(AmplifierError.is(value, 'CANCELLED'), String(value)).toBe(false);
    }
  });

  it('recognises an error from another copy of core, which instanceof does not', async () => {
    vi.resetModules();
    const copy = (await import('./errors.js')) as typeof import('./errors.js');
    expect(copy.AmplifierError).not.toBe(AmplifierError);
    const foreign = new copy.CancelledError('elsewhere');
    expect(foreign).not.toBeInstanceOf(AmplifierError);
    expect(AmplifierError.is(foreign)).toBe(true);
    expect(AmplifierError.is(foreign, 'CANCELLED')).toBe(true);
    expect(AmplifierError.is(foreign, 'MOUNT_FAILED')).toBe(false);
    // And the other way round.
    expect(copy.AmplifierError.is(new ModuleNotFoundError('m', 'x'), 'MODULE_NOT_FOUND')).toBe(true);
  });

  it('narrows the code: the false branch of a filtered test keeps the AmplifierError type', () => {
    const error: AmplifierError = new CancelledError();
    if (AmplifierError.is(error, 'MOUNT_FAILED')) {
      const code: 'MOUNT_FAILED' = error.code;
      expect(code).toBe('never reached');
    } else {
      expect(error.code).toBe('CANCELLED');
    }
  });
});

describe('errors', () => {
  it('every kernel error is an AmplifierError with a stable code and its class name', () => {
    const cases: [AmplifierError, string, string][] = [
      [new ModuleNotFoundError('tool-x', 'not found', ['/a']), 'MODULE_NOT_FOUND', 'ModuleNotFoundError'],
      [new ModuleLoadError('tool-x', 'bad import'), 'MODULE_LOAD_FAILED', 'ModuleLoadError'],
      [
        new ModuleLoadError('tool-x', 'wrong type', { code: 'MODULE_INCOMPATIBLE' }),
        'MODULE_INCOMPATIBLE',
        'ModuleLoadError',
      ],
      [
        new ModuleValidationError('tool-x', 'failed validation'),
        'MODULE_VALIDATION_FAILED',
        'ModuleValidationError',
      ],
      [new MountPlanError('bad plan', []), 'MOUNT_PLAN_INVALID', 'MountPlanError'],
      [new DataValidationError('bad data', []), 'DATA_INVALID', 'DataValidationError'],
      [new ApprovalTimeoutError(), 'APPROVAL_TIMEOUT', 'ApprovalTimeoutError'],
      [new CancelledError(), 'CANCELLED', 'CancelledError'],
    ];
    for (const [error, code, name] of cases) {
      expect(error).toBeInstanceOf(AmplifierError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(error.name).toBe(name);
      expect(AmplifierError.is(error)).toBe(true);
    }
    const notFound = cases[0]![0] as ModuleNotFoundError;
    expect(notFound.moduleId).toBe('tool-x');
    expect(notFound.searched).toEqual(['/a']);
  });

  it('AmplifierError.is recognises errors from another copy of core (brand), not look-alikes', () => {
    const foreign = Object.assign(Object.create({ [Symbol.for('amplifier.error')]: true }), { code: 'X' });
    expect(AmplifierError.is(foreign)).toBe(true);
    expect(AmplifierError.is(foreign, 'CANCELLED')).toBe(false);
    expect(AmplifierError.is(Object.assign(Object.create(foreign), { code: 'CANCELLED' }), 'CANCELLED')).toBe(
      true,
    );
    expect(AmplifierError.is({ code: 'MODULE_NOT_FOUND' })).toBe(false);
    expect(AmplifierError.is(new Error('x'))).toBe(false);
    expect(AmplifierError.is(null)).toBe(false);
    // The brand does not leak into JSON.
    expect(JSON.stringify(new CancelledError('c'))).not.toContain('amplifier');
  });

  it('the cause is kept when given', () => {
    const cause = new Error('root');
    expect(new ModuleLoadError('m', 'x', { cause }).cause).toBe(cause);
    expect('cause' in new ModuleLoadError('m', 'x')).toBe(false);
  });

  it('isFatalError: CancelledError and a platform AbortError are fatal; ordinary errors are not', () => {
    expect(isFatalError(new CancelledError())).toBe(true);
    expect(isFatalError(new DOMException('x', 'AbortError'))).toBe(true);
    expect(isFatalError(AbortSignal.abort().reason)).toBe(true);
    expect(isFatalError(new Error('x'))).toBe(false);
    expect(isFatalError(new ApprovalTimeoutError())).toBe(false);
    expect(isFatalError('AbortError')).toBe(false);
    expect(isFatalError(undefined)).toBe(false);
  });

  it('errorMessage never throws and always gives text', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage(new TypeError(''))).toBe('TypeError');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage(Object.create(null))).toBe('[object Object]');
    const hostile = Object.create(Error.prototype, {
      message: {
        get() {
          throw new Error('no');
        },
      },
    });
    expect(typeof errorMessage(hostile)).toBe('string');
  });

  it('errorType gives the class name, or the typeof for non-errors', () => {
    expect(errorType(new RangeError('x'))).toBe('RangeError');
    expect(errorType(new CancelledError())).toBe('CancelledError');
    expect(errorType('x')).toBe('string');
    expect(errorType(null)).toBe('object');
  });
});

/** A module's own table, as a kit declares it (its codes join `ErrorCode` below). */
const WIDGET_ERRORS = defineErrors({
  WIDGET_MISSING: {
    name: 'WidgetError',
    description: 'no widget of that name',
    message: "Widget '{name}' not found in {where}",
    fix: 'Add it to {where} or pick one of: {known}.',
  },
  WIDGET_BROKEN: { name: 'WidgetError', description: 'the thrower says what broke' },
  WIDGET_GONE: { name: 'WidgetGoneError', description: 'a fixed message', message: 'The widget is gone' },
});

declare module './errors.js' {
  interface DeclaredErrorCodes extends CodesOf<typeof WIDGET_ERRORS> {}
}

describe('defineErrors: a module declares its own codes', () => {
  it("a code's message is produced from its template and parameters; the fix is appended and kept", () => {
    const error = WIDGET_ERRORS.create('WIDGET_MISSING', { name: 'dial', where: 'bundle.md', known: 'knob' });
    expect(error.message).toBe(
      "Widget 'dial' not found in bundle.md Add it to bundle.md or pick one of: knob.",
    );
    expect(error.fix).toBe('Add it to bundle.md or pick one of: knob.');
    expect(error).toMatchObject({ code: 'WIDGET_MISSING', name: 'WidgetError' });
    expect(WIDGET_ERRORS.message('WIDGET_MISSING', { name: 3, where: 'x', known: '' })).toMatch(
      /^Widget '3' not found in x /,
    );
    // A row without a message template takes the whole message; one without placeholders takes none.
    expect(WIDGET_ERRORS.create('WIDGET_BROKEN', { message: 'the spring snapped' }).message).toBe(
      'the spring snapped',
    );
    expect(WIDGET_ERRORS.create('WIDGET_GONE').message).toBe('The widget is gone');
    expect('fix' in WIDGET_ERRORS.create('WIDGET_GONE')).toBe(false);
  });

  it('a parameter value is inserted as text, never read as another placeholder', () => {
    const error = WIDGET_ERRORS.create('WIDGET_MISSING', { name: '{where}', where: '$&', known: '{known}' });
    expect(error.message).toBe("Widget '{where}' not found in $& Add it to $& or pick one of: {known}.");
  });

  it('is an AmplifierError with the code, the cause and the brand; the table filters its own codes', () => {
    const cause = new Error('root');
    const error = WIDGET_ERRORS.create('WIDGET_GONE', {}, { cause });
    expect(error).toBeInstanceOf(AmplifierError);
    expect(error.cause).toBe(cause);
    expect(AmplifierError.is(error, 'WIDGET_GONE')).toBe(true);
    expect(WIDGET_ERRORS.is(error)).toBe(true);
    expect(WIDGET_ERRORS.is(error, 'WIDGET_GONE')).toBe(true);
    expect(WIDGET_ERRORS.is(error, 'WIDGET_BROKEN')).toBe(false);
    expect(WIDGET_ERRORS.is(new CancelledError())).toBe(false);
    expect(WIDGET_ERRORS.is({ code: 'WIDGET_GONE', message: 'x' })).toBe(false);
    expect(Object.isFrozen(WIDGET_ERRORS.codes) && Object.isFrozen(WIDGET_ERRORS.codes.WIDGET_MISSING)).toBe(
      true,
    );
  });

  it('unknown codes and missing or unknown parameters are type errors', () => {
    // @ts-expect-error: not a code of the table
    expect(() => WIDGET_ERRORS.create('WIDGET_MISING')).toThrow(TypeError);
    // @ts-expect-error: `known` is missing
    WIDGET_ERRORS.create('WIDGET_MISSING', { name: 'a', where: 'b' });
    // @ts-expect-error: a row without a template needs its message
    WIDGET_ERRORS.create('WIDGET_BROKEN');
    // @ts-expect-error: not a code of the table
    expect(WIDGET_ERRORS.is(new CancelledError(), 'CANCELLED')).toBe(false);
    // @ts-expect-error: declared codes are known to the base class; others are not
    new AmplifierError('WIDGET_MISING', 'x');
    expect(new AmplifierError('WIDGET_BROKEN', 'x').code).toBe('WIDGET_BROKEN');
  });

  it('errors cross a JSON boundary with their code (and fix), and their row gives back the class name', () => {
    const error = WIDGET_ERRORS.create('WIDGET_MISSING', { name: 'a', where: 'b', known: 'c' });
    const data = JSON.parse(JSON.stringify(error)) as { code: string; fix: string };
    expect(data).toEqual({
      code: 'WIDGET_MISSING',
      name: 'WidgetError',
      fix: 'Add it to b or pick one of: c.',
    });
    expect(WIDGET_ERRORS.codes[data.code as 'WIDGET_MISSING'].name).toBe(error.name);
    // Kernel errors keep their serialized shape: no `fix` field appears.
    expect(JSON.parse(JSON.stringify(new ModuleValidationError('m', 'x')))).toEqual({
      code: 'MODULE_VALIDATION_FAILED',
      name: 'ModuleValidationError',
      moduleId: 'm',
    });
  });
});
