/**
 * The README's example, run: `__fixtures__/readme/stream.ts` is type-checked
 * with the package and shown verbatim in the README (relative imports written
 * as package imports); the test fails when the two drift apart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeBlocks, shownExample } from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';
import { streamingSession } from './__fixtures__/streaming.js';

const SRC = path.dirname(fileURLToPath(import.meta.url));
const README = readFileSync(path.join(SRC, '../README.md'), 'utf8');

describe('README', () => {
  it('shows __fixtures__/readme/stream.ts exactly as tested', () => {
    const code = shownExample(path.join(SRC, '__fixtures__/readme/stream.ts'), {
      [path.join(SRC, 'index.js')]: '@amplifier/server',
    });
    expect(codeBlocks(README).some((b) => b.code === code)).toBe(true);
  });

  it('streaming a turn: text as it streams, a line per tool call, the answer', async () => {
    const { showTurn } = await import('./__fixtures__/readme/stream.js');
    const { session } = streamingSession([
      { blocks: [{ text: ['Let me ', 'look'] }, { tool: { id: 'c1', name: 'echo', input: {} } }] },
      { blocks: [{ text: ['Found ', 'it'] }] },
    ]);
    let shown = '';
    expect(await showTurn(session, 'find it', (text) => (shown += text))).toBe('Found it');
    expect(shown).toBe('Let me look\n[echo]\nFound it');
    await session.cleanup();
  });
});
