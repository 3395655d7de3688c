/**
 * The module ids of real Amplifier bundles, through the CLI: `modules list`
 * shows which module answers to each (and any id that is not available), and a
 * plan written with those ids (the foundation bundle's orchestrator, context,
 * tools and hooks) runs with the modules they resolve to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cliEnv,
  jsonLines,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  writeFile,
} from './__fixtures__/cli.js';

afterEach(removeTempDirs);

const AWS = 'AKIAIOSFODNN7EXAMPLE';

describe('ids of real bundles', () => {
  it('modules list shows the aliases of each module, their notes and the ids that are not available', async () => {
    const cwd = tempDir();
    const result = await runCli(['modules', 'list'], { cwd, env: cliEnv(tempDir()) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^loop-basic\s+orchestrator\s+@amplifier\/loop-basic\s+\S+\s+loop-streaming, loop-events$/m,
    );
    expect(result.stdout).toMatch(
      /^tool-filesystem\s+tool\s+@amplifier\/tool-filesystem\s+\S+\s+tool-search$/m,
    );
    expect(result.stdout).toMatch(
      /^context-simple\s+context\s+@amplifier\/context-simple\s+\S+\s+context-persistent$/m,
    );
    expect(result.stdout).toMatch(/^hooks-redaction\s+hook\s+@amplifier\/hooks-redaction\s+\S+$/m);
    expect(result.stdout).toContain(
      '\nAliases (ids of real Amplifier bundles this project answers with another module):\n',
    );
    expect(result.stdout).toMatch(/^ {2}loop-streaming\s+-> loop-basic\s+streaming is the providers' job/m);
    expect(result.stdout).toMatch(/^ {2}tool-search\s+-> tool-filesystem\s+glob and grep/m);
    // The delegate tool is real now: listed with its alias, nothing is unavailable.
    expect(result.stdout).toMatch(/^tool-delegate\s+tool\s+@amplifier\/tool-delegate\s+\S+\s+tool-task$/m);
    expect(result.stdout).toMatch(/^ {2}tool-task\s+-> tool-delegate/m);
    expect(result.stdout).not.toContain('Not available');

    const json = await runCli(['modules', 'list', '--json'], { cwd, env: cliEnv(tempDir()) });
    const list = JSON.parse(json.stdout) as Array<{
      id: string;
      aliases: { id: string }[];
      unavailable?: string;
    }>;
    expect(list.find((m) => m.id === 'loop-basic')?.aliases.map((a) => a.id)).toEqual([
      'loop-streaming',
      'loop-events',
    ]);
    expect(list.find((m) => m.id === 'tool-web')?.aliases).toEqual([]);
    expect(list.find((m) => m.id === 'tool-delegate')?.unavailable).toBeUndefined();
  });

  it('module validate takes an alias and validates the module that answers to it', async () => {
    const cwd = tempDir();
    const result = await runCli(['module', 'validate', 'loop-streaming', '--json'], {
      cwd,
      env: cliEnv(tempDir()),
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ target: 'loop-streaming', passed: true });
    expect((JSON.parse(result.stdout) as { path: string }).path).toMatch(/loop-basic$/);
  });

  it('a plan with the foundation ids runs: streamed loop, memory files, glob/grep only, redaction before logging', async () => {
    const home = tempDir();
    const cwd = tempDir();
    writeFile(path.join(cwd, 'AGENTS.md'), 'Always answer in French.\n');
    const plan = {
      session: {
        orchestrator: { module: 'loop-streaming', config: { extended_thinking: true } },
        context: {
          module: 'context-persistent',
          config: {
            memory_files: ['AGENTS.md'],
            max_tokens: 300000,
            compact_threshold: 0.8,
            auto_compact: true,
          },
        },
      },
      providers: [
        {
          module: 'provider-mock',
          config: {
            script: [
              {
                tool_calls: [
                  { id: 'c1', name: 'glob', arguments: { pattern: '*.md' } },
                  { id: 'c2', name: 'read_file', arguments: { file_path: 'AGENTS.md' } },
                ],
              },
              'Bonjour.',
            ],
          },
        },
      ],
      tools: [{ module: 'tool-search' }],
      hooks: [
        { module: 'hooks-redaction' },
        { module: 'hooks-streaming-ui', config: { ui: { show_thinking_stream: true, stream_tokens: true } } },
        { module: 'hooks-logging' },
      ],
    };
    const file = writeFile(path.join(cwd, 'plan.json'), JSON.stringify(plan));
    const result = await runCli(['run', '--plan', file, '--json', `my key is ${AWS}`], {
      cwd,
      env: cliEnv(home),
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.find((l) => l.type === 'result')).toMatchObject({
      status: 'completed',
      response: 'Bonjour.',
    });
    const events = lines.filter((l) => l.type === 'event') as {
      event: string;
      data: Record<string, unknown>;
    }[];
    // loop-streaming: the provider streamed the answer.
    expect(events.some((e) => e.event === 'llm:stream_block_delta')).toBe(true);
    // context-persistent: the memory file is a message of the first request (system + user).
    expect(events.find((e) => e.event === 'llm:request')?.data.message_count).toBe(2);
    // tool-search: glob works, read_file is not mounted.
    expect(events.find((e) => e.event === 'tool:post')?.data).toMatchObject({
      tool_name: 'glob',
      result: { success: true, output: { count: 1 } },
    });
    expect(events.find((e) => e.event === 'tool:error')?.data).toMatchObject({ tool_name: 'read_file' });
    // hooks-redaction ran before hooks-logging: the record is masked and says so.
    const [dir] = sessionDirs(home);
    const records = fs
      .readFileSync(path.join(dir!, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const submit = records.find((r) => r.event === 'prompt:submit')!;
    expect(submit).toMatchObject({
      redaction: { applied: true },
      data: { prompt: 'my key is [REDACTED:SECRET]' },
    });
    expect(submit.ts).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('a plan naming tool-delegate or tool-task (its alias) mounts the delegate tool', async () => {
    for (const id of ['tool-delegate', 'tool-task']) {
      const cwd = tempDir();
      const plan = {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'provider-mock', config: { script: ['x'] } }],
        tools: [{ module: id, config: { features: { self_delegation: { enabled: true } } } }],
      };
      const file = writeFile(path.join(cwd, 'plan.json'), JSON.stringify(plan));
      const result = await runCli(['tool', 'list', '--plan', file, '--json'], {
        cwd,
        env: cliEnv(tempDir()),
      });
      expect(result.code, result.stderr).toBe(0);
      expect((JSON.parse(result.stdout) as { name: string }[]).map((t) => t.name)).toContain('delegate');
    }
  });
});
