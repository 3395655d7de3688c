/** The README's example, shown verbatim and run. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeBlocks, shownExample } from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));
const README = readFileSync(path.join(SRC, '../README.md'), 'utf8');
const IMPORTS = { [path.join(SRC, 'index.js')]: '@amplifier/process' };

describe('README', () => {
  it('shows process.ts exactly as tested', () => {
    const code = shownExample(path.join(SRC, '__fixtures__/readme/process.ts'), IMPORTS);
    expect(
      codeBlocks(README).some((b) => b.code === code),
      `README.md has no block equal to:\n${code}`,
    ).toBe(true);
  });

  it('child processes: runInGroup feeds stdin and captures stdout; an aborted call returns no result', async () => {
    const { countWords } = await import('./__fixtures__/readme/process.js');
    expect(await countWords('one two three')).toBe(3);
    expect(await countWords('one', AbortSignal.abort())).toBeUndefined();
  });
});
