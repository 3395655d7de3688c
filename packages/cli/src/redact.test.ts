/**
 * What the CLI prints (issue 16, point 4): the session's data as it is, except
 * that values of secret-named keys are never printed; `--redact` applies the
 * event log's rules (the same Redactor hooks-logging writes events.jsonl with)
 * to everything printed. transcript.jsonl stays verbatim (resume replays it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cliEnv,
  jsonLines,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  writeMockPlan,
} from './__fixtures__/cli.js';
import { Display } from './display.js';

afterEach(() => {
  removeTempDirs();
});

/** A stream that keeps what is written to it. */
function sink(): Writable & { text: string; isTTY: boolean } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Writable & { text: string; isTTY: boolean };
  stream.text = '';
  stream.isTTY = false;
  return stream;
}

const SECRETS = {
  token: 'tok-e2e-12345678',
  mysql: 'mysqle2epass',
  keyed: 'keyed-secret-9876',
};

describe('Display: what is printed', () => {
  it('--json: values of secret-named keys are hidden, strings are verbatim; with redact both are redacted', () => {
    const event = {
      type: 'event',
      event: 'tool:pre',
      data: { tool_input: { password: SECRETS.keyed, command: `export API_TOKEN=${SECRETS.token}` } },
    };
    const plain = sink();
    new Display({ json: true, stdout: plain, env: {} }).emitJson(event);
    expect(plain.text).not.toContain(SECRETS.keyed);
    expect(plain.text).toContain(SECRETS.token);
    const redacted = sink();
    new Display({ json: true, redact: true, stdout: redacted, env: {} }).emitJson(event);
    expect(redacted.text).not.toContain(SECRETS.keyed);
    expect(redacted.text).not.toContain(SECRETS.token);
    expect(JSON.parse(redacted.text).data.tool_input.command).toBe('export API_TOKEN=[REDACTED:key_value]');
  });

  it('--json prints events as the hooks left them: hooks-redaction (priority 10) masks them first', async () => {
    const { mount: mountRedaction } = await import('@amplifier/hooks-redaction');
    const coordinator = createTestCoordinator({ bare: true });
    await mountRedaction(coordinator, {});
    const out = sink();
    new Display({ json: true, stdout: out, env: {} }).attach(coordinator.hooks);
    const key = 'sk-ant-e2e0123456789abcdefghij'; // a pattern of hooks-redaction, not of the CLI's own rules
    // (hooks-redaction skips tool:pre and tool:post by default, as the reference does)
    await coordinator.hooks.emit('prompt:submit', { prompt: `use the key ${key} for the call` });
    const line = jsonLines(out.text).find((l) => l.event === 'prompt:submit');
    expect(line, out.text).toBeDefined();
    expect(out.text).not.toContain(key);
    expect(out.text).toContain('[REDACTED:SECRET]');
    expect(JSON.stringify(line)).toContain('"redaction":{"applied":true');
  });

  it('the tool line never shows a secret-named argument; with redact the command is redacted too', async () => {
    for (const redact of [false, true]) {
      const stderr = sink();
      const display = new Display({ stderr, redact, env: {} });
      const coordinator = createTestCoordinator({ bare: true });
      display.attach(coordinator.hooks);
      await coordinator.hooks.emit('tool:pre', {
        tool_name: 'login',
        tool_call_id: 'a',
        tool_input: { api_key: SECRETS.keyed },
      });
      await coordinator.hooks.emit('tool:pre', {
        tool_name: 'bash',
        tool_call_id: 'b',
        tool_input: { command: `mysql -u root -p${SECRETS.mysql} db` },
      });
      expect(stderr.text).toContain('→ login [REDACTED]');
      expect(stderr.text).not.toContain(SECRETS.keyed);
      if (redact) expect(stderr.text).toContain('→ bash mysql -u root -p[REDACTED:cli_password] db');
      else expect(stderr.text).toContain(SECRETS.mysql);
    }
  });
});

describe('amplifier run --redact and session show --redact', () => {
  it('prints secrets in strings only without --redact; events.jsonl never has them; the transcript is verbatim', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const env = cliEnv(home);
    const command = `echo "export API_TOKEN=${SECRETS.token}; mysql -p${SECRETS.mysql}"`;
    const plan = writeMockPlan(
      cwd,
      [{ tool_calls: [{ id: 'c1', name: 'bash', arguments: { command } }] }, 'done', 'done again'],
      { mock: { loop: true } },
    );
    const verbatim = await runCli(['run', '--plan', plan, '--json', 'go'], { cwd, env });
    expect(verbatim.code, verbatim.stderr).toBe(0);
    expect(verbatim.stdout).toContain(SECRETS.token);

    const redacted = await runCli(['run', '--plan', plan, '--json', '--redact', 'go'], { cwd, env });
    expect(redacted.code, redacted.stderr).toBe(0);
    for (const secret of Object.values(SECRETS)) expect(redacted.stdout).not.toContain(secret);
    const post = jsonLines(redacted.stdout).find((l) => l.event === 'tool:post');
    expect(JSON.stringify(post)).toContain('API_TOKEN=[REDACTED:key_value]');
    expect(jsonLines(redacted.stdout).find((l) => l.type === 'result')).toMatchObject({
      status: 'completed',
    });

    const text = await runCli(['run', '--plan', plan, '--redact', 'go'], { cwd, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('bash echo "export API_TOKEN=[REDACTED:key_value]');
    expect(text.stderr + text.stdout).not.toContain(SECRETS.token);

    for (const dir of sessionDirs(home)) {
      const events = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
      for (const secret of [SECRETS.token, SECRETS.mysql]) expect(events).not.toContain(secret);
      expect(fs.readFileSync(path.join(dir, 'transcript.jsonl'), 'utf8')).toContain(SECRETS.token);
    }

    const id = jsonLines(verbatim.stdout).find((l) => l.type === 'session')?.session_id as string;
    const show = await runCli(['session', 'show', id], { cwd, env });
    expect(show.stdout).toContain(SECRETS.token.slice(0, 10));
    const showRedacted = await runCli(['session', 'show', id, '--redact'], { cwd, env });
    expect(showRedacted.code, showRedacted.stderr).toBe(0);
    expect(showRedacted.stdout).not.toContain(SECRETS.token.slice(0, 10));
    const showJson = await runCli(['session', 'show', id, '--json', '--redact'], { cwd, env });
    for (const secret of Object.values(SECRETS)) expect(showJson.stdout).not.toContain(secret);
    expect(JSON.parse(showJson.stdout).messages).toHaveLength(4);
  }, 120_000);

  it('secret values (the shared rule set) in a prompt: never in metadata.json, session list or events.jsonl; the transcript is verbatim', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const env = cliEnv(home);
    // Built when the test runs: nothing in the repository looks like a live token.
    const body = (n: number) => Array.from({ length: n }, (_, i) => 'Xy7Qw3Er9Tz5'[i % 12]).join('');
    const stripe = ['sk', '_live_', body(30)].join('');
    const npm = ['npm', '_', body(36)].join('');
    const plan = writeMockPlan(cwd, ['done']);
    const run = await runCli(['run', '--plan', plan, `pay with ${stripe} and publish with ${npm}`], {
      cwd,
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const [dir] = sessionDirs(home);
    const metadata = fs.readFileSync(path.join(dir as string, 'metadata.json'), 'utf8');
    expect(JSON.parse(metadata).name).toBe('pay with [REDACTED:stripe] and publish with [REDACTED:npm]');
    const events = fs.readFileSync(path.join(dir as string, 'events.jsonl'), 'utf8');
    for (const secret of [stripe, npm]) {
      expect(metadata).not.toContain(secret);
      expect(events).not.toContain(secret);
    }
    expect(fs.readFileSync(path.join(dir as string, 'transcript.jsonl'), 'utf8')).toContain(stripe);
    const list = await runCli(['session', 'list'], { cwd, env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('[REDACTED:stripe]');
    expect(list.stdout + list.stderr).not.toContain(stripe);
  }, 120_000);
});
