/**
 * Tool-call arguments nested thousands of levels deep, sent by the model
 * (provider-mock's script), through a real session of loop-basic,
 * context-simple and tool-filesystem: the turn completes, the call fails with
 * a message the model can act on, and the history stays readable.
 */
import { fileURLToPath } from 'node:url';
import { AmplifierSession, type ContextManager, type Message } from '@amplifier/core';
import { nestedValue } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './__fixtures__/cli.js';

const CLI_DIR = fileURLToPath(new URL('../', import.meta.url));

afterEach(removeTempDirs);

describe('deep tool-call arguments from the model', () => {
  for (const depth of [3_000, 100_000]) {
    it(`${depth} levels: the turn completes, the call fails clearly, history and requests stay readable`, async () => {
      const cwd = tempDir();
      const session = new AmplifierSession(
        {
          session: { orchestrator: 'loop-basic', context: 'context-simple' },
          providers: [
            {
              module: 'provider-mock',
              config: {
                script: [
                  {
                    tool_calls: [
                      {
                        id: 'deep',
                        name: 'read_file',
                        arguments: { file_path: 'x', extra: nestedValue(depth) },
                      },
                    ],
                  },
                  'recovered',
                ],
              },
            },
          ],
          tools: [{ module: 'tool-filesystem' }],
        },
        { baseDir: CLI_DIR, workingDir: cwd, logger: { debug() {}, info() {}, warn() {}, error() {} } },
      );
      try {
        expect(await session.execute('go')).toBe('recovered');
        const context = session.coordinator.get('context') as ContextManager;
        const history: Message[] = await context.getMessages();
        expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        const toolMessage = history[2]!;
        expect(toolMessage.tool_call_id).toBe('deep');
        expect(String(toolMessage.content)).toMatch(/nested deeper than \d+ levels/);
        expect(() => JSON.stringify(history)).not.toThrow();
        const request = await context.getMessagesForRequest();
        expect(request.length).toBeGreaterThanOrEqual(4);
      } finally {
        await session.cleanup();
      }
    });
  }
});
