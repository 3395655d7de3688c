/**
 * `amplifier run` with the standard OTLP variables: the CLI starts the SDK,
 * mounts hooks-otel and exports the session's spans and metrics to a receiver
 * this test starts on 127.0.0.1.
 */
import path from 'node:path';
import { parseMountPlan } from '@amplifier/core';
import { type OtlpReceiver, startOtlpReceiver } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, removeTempDirs, runCli, tempDir, writeFile, writeMockPlan } from './__fixtures__/cli.js';
import { badEndpoint, telemetryRequested, withOtelHook } from './telemetry.js';

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

it('a collector that is not there: the run succeeds and says the export failed', async () => {
  // A port that was listening and is closed now: connections are refused at once.
  const closed = await startOtlpReceiver();
  await closed.close();
  const home = tempDir();
  const cwd = tempDir();
  const plan = writeMockPlan(cwd, ['Fine.']);
  const result = await runCli(['run', '--plan', plan, 'hi'], {
    cwd,
    env: cliEnv(home, { OTEL_EXPORTER_OTLP_ENDPOINT: closed.endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' }),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toBe('Fine.\n');
  expect(result.stderr).toContain(`telemetry: exporting to ${closed.endpoint} failed`);
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
