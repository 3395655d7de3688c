/**
 * README examples kept honest: each example is a real file a package's tests
 * type-check and run, and the README must show it verbatim. A file's relative
 * imports (and module augmentations) of the package's own entry points are
 * shown as the package imports a reader writes; a `// #region readme` ... `// #endregion` pair limits what
 * is shown to the part between them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One fenced code block of a markdown text: its language tag and its code. */
export interface CodeBlock {
  lang: string;
  code: string;
}

/** The fenced code blocks of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  return [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] ?? '', code: m[2]! }));
}

/**
 * The text of example `file` as a README shows it: its readme region (or the
 * whole file), with each relative import (or `declare module` augmentation)
 * whose resolved target is a key of `packageImports` (an absolute path ending
 * in `.js`) replaced by its value.
 */
export function shownExample(file: string, packageImports: Readonly<Record<string, string>>): string {
  let text = readFileSync(file, 'utf8');
  const region = /\/\/ #region readme\n([\s\S]*?)\/\/ #endregion\n/.exec(text);
  if (region) text = region[1]!;
  return text.replace(/(from|declare module) '(\.[^']+)'/g, (match, keyword: string, spec: string) => {
    const target = packageImports[path.resolve(path.dirname(file), spec)];
    return target === undefined ? match : `${keyword} '${target}'`;
  });
}
