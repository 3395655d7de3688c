/**
 * Every export of core's root carries documentation: a JSDoc comment on its
 * declaration (what it is, in one line at least), and the exports a newcomer
 * uses first carry an `@example`. Read with the TypeScript compiler from the
 * sources, so a new export without a comment fails here. The examples are not
 * run, so they are type-checked instead: each fenced `ts` block of an
 * `@example` is compiled as a module author's file that imports
 * `@amplifier/core` (resolved to these sources), with the package's settings.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));

/** The ten a newcomer meets first (issue 17): each needs an `@example`. */
const WITH_EXAMPLE = [
  'AmplifierSession',
  'Coordinator',
  'HookRegistry',
  'ModuleLoader',
  'Tool',
  'Provider',
  'Orchestrator',
  'ContextManager',
  'CancellationToken',
  'validateMountPlan',
];

/** The package's compiler options (tsconfig.json), resolving `@amplifier/core` to its sources. */
function compilerOptions(): ts.CompilerOptions {
  const file = path.join(SRC, '../tsconfig.json');
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(file));
  return { ...options, noEmit: true, customConditions: ['@amplifier/source'] };
}

const options = compilerOptions();
const program = ts.createProgram([path.join(SRC, 'index.ts')], options);

function exportsOfRoot(): Map<string, ts.Declaration[]> {
  const checker = program.getTypeChecker();
  const index = program.getSourceFile(path.join(SRC, 'index.ts'))!;
  const found = new Map<string, ts.Declaration[]>();
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(index)!)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    found.set(symbol.name, target.declarations ?? []);
  }
  return found;
}

function docsOf(declaration: ts.Declaration): readonly ts.JSDoc[] {
  // A `const` is documented on its statement; ts.getJSDocCommentsAndTags finds both.
  return ts.getJSDocCommentsAndTags(declaration).filter((d): d is ts.JSDoc => ts.isJSDoc(d));
}

/** The text of a JSDoc comment or tag before its tags (`''` when there is none). */
function textOf(comment: ts.JSDoc['comment']): string {
  return (ts.getTextOfJSDocComment(comment) ?? '').trim();
}

/** The fenced `ts` blocks of every `@example` tag on the declarations of `name`. */
function examplesOf(name: string): string[] {
  return (roots.get(name) ?? []).flatMap((d) =>
    docsOf(d).flatMap((doc) =>
      (doc.tags ?? [])
        .filter((tag) => tag.tagName.text === 'example')
        .flatMap((tag) => [...textOf(tag.comment).matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)),
    ),
  );
}

/** Type-check `files` (path -> code) as modules of this package; the diagnostics, formatted. */
function typeCheck(files: ReadonlyMap<string, string>): string[] {
  const host = ts.createCompilerHost(options);
  const { fileExists, getSourceFile, readFile } = host;
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file);
  host.readFile = (file) => files.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const code = files.get(file);
    if (code !== undefined) return ts.createSourceFile(file, code, language, true);
    // The sources, lib and @types files as the first program parsed them.
    return program.getSourceFile(file) ?? getSourceFile.call(host, file, language, ...rest);
  };
  const checking = ts.createProgram({ rootNames: [...files.keys()], options, host, oldProgram: program });
  return [...files.keys()].flatMap((file) => {
    const source = checking.getSourceFile(file)!;
    const diagnostics = [
      ...checking.getSyntacticDiagnostics(source),
      ...checking.getSemanticDiagnostics(source),
    ];
    return diagnostics.map((d) => ts.formatDiagnostic(d, host));
  });
}

const roots = exportsOfRoot();

describe("core's public API is documented", () => {
  it('has the exports this test expects to read', () => {
    expect(roots.size).toBeGreaterThan(100);
    expect(roots.has('AmplifierSession')).toBe(true);
  });

  it('every export of the root has a JSDoc comment that says something', () => {
    const missing: string[] = [];
    for (const [name, declarations] of roots) {
      if (name === 'events') continue; // the namespace of event constants: each constant is checked below
      if (!declarations.some((d) => docsOf(d).some((doc) => textOf(doc.comment) !== ''))) missing.push(name);
    }
    expect(missing, `exports without a JSDoc comment: ${missing.join(', ')}`).toEqual([]);
  });

  it('every constant of the events namespace has a JSDoc comment that says something', () => {
    const checker = program.getTypeChecker();
    const eventsFile = program.getSourceFile(path.join(SRC, 'events.ts'))!;
    const constants = checker.getExportsOfModule(checker.getSymbolAtLocation(eventsFile)!);
    expect(constants.length).toBeGreaterThanOrEqual(44); // 42 events, ALL_EVENTS, the channel name
    const missing = constants
      .filter((c) => !(c.declarations ?? []).some((d) => docsOf(d).some((doc) => textOf(doc.comment) !== '')))
      .map((c) => c.name);
    expect(missing, `event constants without a JSDoc comment: ${missing.join(', ')}`).toEqual([]);
  });

  it.each(WITH_EXAMPLE)('%s has an @example with a ts code block', (name) => {
    expect(examplesOf(name).length, `${name} has no @example with a \`\`\`ts block`).toBeGreaterThan(0);
  });

  it('every @example type-checks against the sources', () => {
    const files = new Map<string, string>();
    for (const name of roots.keys()) {
      examplesOf(name).forEach((code, i) => {
        // A module of its own (top-level await, no clashes), beside the sources so `@amplifier/core` resolves.
        files.set(path.join(SRC, `__jsdoc_example_${name}_${i}.ts`), `${code}\nexport {};\n`);
      });
    }
    expect(files.size).toBeGreaterThanOrEqual(WITH_EXAMPLE.length);
    expect(typeCheck(files)).toEqual([]);
  });
});
