import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CliProcess,
  cliEnv,
  jsonLines,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  writeMockPlan,
} from './__fixtures__/cli.js';

afterEach(() => removeTempDirs());

const ANSWER = 'The quick brown fox jumps over the lazy dog.';

function transcript(home: string): Array<Record<string, unknown>> {
  const [dir] = sessionDirs(home);
  return jsonLines(fs.readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8'));
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('streaming the answer', () => {
  it('prints the answer exactly once on stdout when it streamed', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [ANSWER], { mock: { stream_chunk_chars: 5 } });
    const run = await runCli(['run', '--plan', plan, 'hello'], { cwd, env: cliEnv(home) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${ANSWER}\n`);
    expect(count(run.stdout, ANSWER)).toBe(1);
  });

  it('prints the answer at the end when the provider does not stream (use_streaming: false)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [ANSWER], { mock: { use_streaming: false } });
    const run = await runCli(['run', '--plan', plan, 'hello'], { cwd, env: cliEnv(home) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${ANSWER}\n`);
  });

  it('streams the text written next to a tool call once, then the tool line, then the answer', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(
      cwd,
      [
        {
          text: 'Let me check the folder.',
          tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: 'echo streamed-tool' } }],
        },
        ANSWER,
      ],
      { mock: { stream_chunk_chars: 7 } },
    );
    const run = await runCli(['run', '--plan', plan, 'hello'], { cwd, env: cliEnv(home) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`Let me check the folder.\n${ANSWER}\n`);
    // Not repeated dimmed on stderr; the tool line is there as before.
    expect(run.stderr).not.toContain('Let me check the folder.');
    expect(run.stderr).toMatch(/✓ bash echo streamed-tool/);
  });

  it('--json includes the stream events as JSON lines', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [ANSWER], { mock: { stream_chunk_chars: 8 } });
    const run = await runCli(['run', '--plan', plan, '--json', 'hello'], { cwd, env: cliEnv(home) });
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    const deltas = lines.filter((l) => l.event === 'llm:stream_block_delta');
    expect(deltas.length).toBe(Math.ceil(ANSWER.length / 8));
    expect(deltas.map((l) => (l.data as { text: string }).text).join('')).toBe(ANSWER);
    expect(lines.some((l) => l.event === 'llm:stream_block_start')).toBe(true);
    expect(lines.some((l) => l.event === 'llm:stream_block_end')).toBe(true);
    expect(lines.find((l) => l.type === 'result')).toMatchObject({ status: 'completed', response: ANSWER });
  });

  it('shows streamed thinking dimmed on stderr, and hides it with --no-thinking', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [{ thinking: 'Pondering the question deeply.', text: ANSWER }], {
      mock: { stream_chunk_chars: 6 },
    });
    const shown = await runCli(['run', '--plan', plan, 'hello'], { cwd, env: cliEnv(home) });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toContain('Pondering the question deeply.');
    expect(shown.stdout).toBe(`${ANSWER}\n`);

    const hidden = await runCli(['run', '--plan', plan, '--no-thinking', 'hello'], {
      cwd,
      env: cliEnv(home),
    });
    expect(hidden.code, hidden.stderr).toBe(0);
    expect(hidden.stderr).not.toContain('Pondering');
    expect(hidden.stdout).toBe(`${ANSWER}\n`);
  });

  it('writes fragments while the turn runs; Ctrl+C keeps the partial answer marked interrupted, and resume works', async () => {
    const home = tempDir();
    const cwd = tempDir();
    // One fragment, then a pause far longer than any test: the turn cannot end by itself.
    const plan = writeMockPlan(cwd, ['Partial answer that never finishes'], {
      mock: { stream_chunk_chars: 12, stream_delay: 1000 },
    });
    const cli = new CliProcess(['run', '--plan', plan, 'hello'], { cwd, env: cliEnv(home) });
    await cli.waitFor('stdout', 'Partial answ');
    // The first fragment is on stdout while the provider is still streaming.
    expect(cli.child.exitCode).toBeNull();
    expect(cli.stdout).not.toContain('never finishes');
    cli.kill('SIGINT');
    await cli.waitFor('stderr', 'Cancelling');
    cli.kill('SIGINT');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
    expect(count(exit.stdout, 'Partial answ')).toBe(1);
    expect(exit.stdout).not.toContain('never finishes');

    const messages = transcript(home);
    const kept = messages.filter((m) => m.role === 'assistant');
    expect(kept).toHaveLength(1);
    expect(kept[0]!.content).toContain('Partial answ');
    expect(kept[0]!.metadata).toMatchObject({ interrupted: true });

    const id = path.basename(sessionDirs(home)[0]!);
    const resumePlan = writeMockPlan(cwd, ['resumed fine'], { name: 'resume.json' });
    const resumed = await runCli(['run', '--resume', id.slice(0, 8), '--plan', resumePlan, 'go on'], {
      cwd,
      env: cliEnv(home),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('resumed fine\n');
    const roles = transcript(home).map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});

describe('a stream that fails after partial text', () => {
  it('shows the partial text once with a note, exits 1, keeps no half answer, and the session resumes', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(
      cwd,
      [
        {
          text: 'The first half of the answer',
          stream_error: { kind: 'network', message: 'connection reset by peer' },
        },
      ],
      { mock: { stream_chunk_chars: 6 } },
    );
    const run = await runCli(['run', '--plan', plan, 'hello'], { cwd, env: cliEnv(home) });
    expect(run.code).toBe(1);
    // Streamed as it came, on its own line, once; never presented as the answer.
    expect(run.stdout).toBe('The first half of the answer\n');
    expect(run.stderr).toContain('(the answer stopped: connection reset by peer)');
    expect(run.stderr).toContain('connection reset by peer');
    // The transcript holds the prompt only: a failed call leaves no assistant message.
    expect(transcript(home).map((m) => m.role)).toEqual(['user']);
    const [dir] = sessionDirs(home);
    const logged = jsonLines(fs.readFileSync(path.join(dir!, 'events.jsonl'), 'utf8')).map((l) => l.event);
    expect(logged).toContain('llm:stream_aborted');
    expect(logged).not.toContain('llm:stream_block_delta'); // deltas are excluded from the log by default

    const id = path.basename(dir!);
    const resumePlan = writeMockPlan(cwd, ['second try worked'], { name: 'resume.json' });
    const resumed = await runCli(['run', '--resume', id.slice(0, 8), '--plan', resumePlan, 'again'], {
      cwd,
      env: cliEnv(home),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('second try worked\n');
    expect(transcript(home).map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
  });

  it('--json: the deltas, then llm:stream_aborted, then the failed llm:response', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(
      cwd,
      [{ text: 'Half an answer', stream_error: { kind: 'network', message: 'connection reset by peer' } }],
      { mock: { stream_chunk_chars: 5 } },
    );
    const run = await runCli(['run', '--plan', plan, '--json', 'hello'], { cwd, env: cliEnv(home) });
    expect(run.code).toBe(1);
    const events = jsonLines(run.stdout)
      .filter((l) => typeof l.event === 'string' && (l.event as string).startsWith('llm:'))
      .map((l) => l.event);
    expect(events).toEqual([
      'llm:request',
      'llm:stream_block_start',
      'llm:stream_block_delta',
      'llm:stream_block_delta',
      'llm:stream_block_delta',
      'llm:stream_aborted',
      'llm:response',
    ]);
  });
});

describe('Ctrl+C mid-stream with --json', () => {
  it('keeps the partial answer marked interrupted (the deltas are in the JSON lines)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['Partial answer that never finishes'], {
      mock: { stream_chunk_chars: 12, stream_delay: 1000 },
    });
    const cli = new CliProcess(['run', '--plan', plan, '--json', 'hello'], { cwd, env: cliEnv(home) });
    await cli.waitFor('stdout', '"event":"llm:stream_block_delta"');
    cli.kill('SIGINT');
    await cli.waitFor('stderr', 'Cancelling');
    cli.kill('SIGINT');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
    const lines = jsonLines(exit.stdout);
    expect(lines.find((l) => l.type === 'result')).toMatchObject({ status: 'cancelled' });
    const kept = transcript(home).filter((m) => m.role === 'assistant');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ metadata: { interrupted: true } });
    expect(kept[0]!.content).toContain('Partial answ');
  });
});

describe('streaming in the REPL (a terminal, with the spinner)', () => {
  it('shows each streamed answer once; Ctrl+C mid-stream keeps the partial answer and the next turn runs', async () => {
    const home = tempDir();
    const cwd = tempDir();
    // Fragments of 20 characters, 1000 s apart: 'pong' is one fragment (no pause), the second
    // answer stops after its first fragment until it is cancelled.
    const plan = writeMockPlan(cwd, ['pong', 'Interrupted stream: never shown', 'after the cancel'], {
      mock: { stream_chunk_chars: 20, stream_delay: 1000 },
    });
    const cli = new CliProcess(['run', '--plan', plan], {
      cwd,
      env: cliEnv(home, { NO_COLOR: '1', CI: undefined }),
      tty: true,
    });
    const prompt = (n: number) => cli.waitFor('stdout', new RegExp(`(›[^›]*){${n}}`));
    await prompt(1);
    cli.write('ping\r');
    await cli.waitFor('stdout', 'pong');
    await prompt(2);
    cli.write('go on\r');
    await cli.waitFor('stdout', 'Interrupted stream: ');
    expect(cli.stdout).not.toContain('never shown');
    cli.write('\u0003');
    await cli.waitFor('stdout', 'Cancelling');
    cli.write('\u0003');
    await cli.waitFor('stdout', 'Cancelled.');
    await prompt(3);
    cli.write('more\r');
    await cli.waitFor('stdout', 'after the cancel');
    await prompt(4);
    cli.write('/exit\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
    expect(count(exit.stdout, 'pong')).toBe(1);
    expect(count(exit.stdout, 'Interrupted stream: ')).toBe(1);
    expect(count(exit.stdout, 'after the cancel')).toBe(1);
    expect(exit.stdout).not.toContain('never shown');
    const messages = transcript(home);
    expect(messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(messages[3]).toMatchObject({ metadata: { interrupted: true } });
  });
});
