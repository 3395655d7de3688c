/**
 * `amplifier run` with the standard OTLP variables: the CLI starts the SDK,
 * mounts hooks-otel and exports the session's spans and metrics to a receiver
 * this test starts on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseMountPlan } from '@amplifier/core';
import { type OtlpReceiver, startOtlpReceiver } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeFile, writeMockPlan } from './__fixtures__/cli.js';
import { badEndpoint, enablingVariable, telemetryRequested, withOtelHook } from './telemetry.js';

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  removeTempDirs();
});

describe('when telemetry is on', () => {
  it('follows the standard variables', () => {
    expect(telemetryRequested({})).toBe(false);
    expect(telemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(telemetryRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true);
    expect(telemetryRequested({ AMPLIFIER_OTEL: '1' })).toBe(true);
    expect(telemetryRequested({ AMPLIFIER_OTEL: '0', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(
      false,
    );
    expect(
      telemetryRequested({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBe(false);
  });

  it('refuses an endpoint that is not an http(s) URL, saying so', () => {
    expect(badEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeUndefined();
    expect(badEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT=collector is not an http\(s\) URL .*telemetry is off/,
    );
    expect(badEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'garbage' })).toMatch(/TRACES_ENDPOINT=garbage/);
  });

  it('names the variable that turned telemetry on', () => {
    expect(enablingVariable({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' })).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(enablingVariable({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x:4318' })).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    );
    expect(enablingVariable({ AMPLIFIER_OTEL: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' })).toBe(
      'AMPLIFIER_OTEL',
    );
  });

  it('adds hooks-otel to the plan once', () => {
    const plan = parseMountPlan({
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      hooks: [{ module: 'hooks-logging' }],
    });
    const traced = withOtelHook(plan);
    expect(traced.hooks?.map((h) => h.module)).toEqual(['hooks-logging', 'hooks-otel']);
    expect(withOtelHook(traced)).toBe(traced);
  });
});

it('amplifier run exports the span tree and the GenAI metrics over OTLP/HTTP', async () => {
  receiver = await startOtlpReceiver();
  const home = tempDir();
  const cwd = tempDir();
  writeFile(path.join(cwd, 'notes.txt'), 'remember the milk\n');
  const plan = writeMockPlan(
    cwd,
    [
      {
        tool_calls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'notes.txt' } }],
        usage: { input_tokens: 40, output_tokens: 6 },
      },
      { text: 'It says to remember the milk.', usage: { input_tokens: 60, output_tokens: 8 } },
    ],
    { tools: [{ module: 'tool-filesystem' }] },
  );
  const result = await runCli(['run', '--plan', plan, 'What do my notes say?'], {
    cwd,
    env: cliEnv(home, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'cli-e2e' }),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toBe('It says to remember the milk.\n');

  // The process flushed before exiting: everything has arrived.
  expect(receiver.requests.every((r) => r.status === 200)).toBe(true);
  const spans = receiver.spans;
  const named = (name: string) => spans.filter((s) => s.name === name);
  const [root] = named('invoke_agent amplifier');
  expect(root?.parentSpanId).toBeUndefined();
  expect(root!.resource['service.name']).toBe('cli-e2e');
  expect(root!.attributes['gen_ai.usage.input_tokens']).toBe(100);
  const [turn] = named('turn');
  expect(turn!.parentSpanId).toBe(root!.spanId);
  const chats = named('chat mock-model');
  expect(chats.map((c) => c.parentSpanId)).toEqual([turn!.spanId, turn!.spanId]);
  const [read] = named('execute_tool read_file');
  expect(read!.parentSpanId).toBe(turn!.spanId);
  expect(read!.attributes).toMatchObject({ 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.id': 'r1' });
  expect(read!.status.code).toBe(0);
  // Content is off unless the plan turns it on.
  expect(JSON.stringify(spans)).not.toContain('remember the milk');

  const metricNames = JSON.stringify(receiver.metrics);
  expect(metricNames).toContain('gen_ai.client.token.usage');
  expect(metricNames).toContain('gen_ai.client.operation.duration');
});

it('a collector that is not there: the run succeeds without telemetry, one line naming the variable that turned it on', async () => {
  // A port that was listening and is closed now: connections are refused at once.
  const closed = await startOtlpReceiver();
  await closed.close();
  const home = tempDir();
  const cwd = tempDir();
  const plan = writeMockPlan(cwd, ['Fine.']);
  for (const [extra, variable] of [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: closed.endpoint }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ AMPLIFIER_OTEL: '1', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: closed.endpoint }, 'AMPLIFIER_OTEL'],
  ] as const) {
    const result = await runCli(['run', '--plan', plan, 'hi'], { cwd, env: cliEnv(home, extra) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Fine.\n');
    const lines = result.stderr.split('\n').filter((line) => line.includes('telemetry'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `telemetry: no OTLP collector answers at ${closed.endpoint} (connect ECONNREFUSED`,
    );
    expect(lines[0]).toContain(
      `telemetry is off for this run. Start a collector there, or unset ${variable}`,
    );
  }
});

it("a collector that refuses the export: the run succeeds and says so in one line, without the SDK's JSON", async () => {
  const server = http.createServer((_request, response) => {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end('{"code":3,"message":"bad payload"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['Fine.']);
    const result = await runCli(['run', '--plan', plan, 'hi'], {
      cwd,
      env: cliEnv(home, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.includes('telemetry'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^.*telemetry: exporting to ${endpoint} failed \\([^{}\\n]+\\); check that an OTLP/HTTP collector listens there, or unset OTEL_EXPORTER_OTLP_ENDPOINT$`,
      ),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  } finally {
    server.close();
  }
});

it('an endpoint that is not a URL: the run succeeds without telemetry and says why', async () => {
  const home = tempDir();
  const cwd = tempDir();
  const plan = writeMockPlan(cwd, ['Fine.']);
  const result = await runCli(['run', '--plan', plan, 'hi'], {
    cwd,
    env: cliEnv(home, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' }),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=collector is not an http(s) URL');
});
