/**
 * OpenTelemetry export for `amplifier run`, off unless asked for with the
 * standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set (or `AMPLIFIER_OTEL=1`, which uses
 * the exporter's default, http://localhost:4318), and `OTEL_SDK_DISABLED` not
 * `true`. Then the SDK is imported (only then: a run without telemetry loads
 * none of it), registered globally with the OTLP/HTTP exporters for traces
 * and metrics (they read the other `OTEL_EXPORTER_OTLP_*` variables, headers
 * and timeouts included, themselves), and `hooks-otel` is added to the plan.
 * The collector is probed first (one TCP connect, while the SDK loads): when
 * nothing answers, telemetry is off for the run with one line saying so,
 * instead of the exporter retrying until its timeout at the end of the run.
 */
import net from 'node:net';
import { type MountPlan, parseMountPlan } from '@amplifier/core';
import type { ResolvedPlan } from './plan.js';

/** The SDK in use for this run; `shutdown` exports what is pending (call it after the session's cleanup). */
export interface Telemetry {
  readonly resolved: ResolvedPlan;
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** True when the environment asks for OTLP export. */
export function telemetryRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.AMPLIFIER_OTEL !== undefined && env.AMPLIFIER_OTEL !== '') return env.AMPLIFIER_OTEL !== '0';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** The plan with `hooks-otel` among its hooks (kept as it is when the plan mounts it already). */
export function withOtelHook(plan: MountPlan): MountPlan {
  const hooks = plan.hooks ?? [];
  if (hooks.some((h) => h.module === 'hooks-otel')) return plan;
  return parseMountPlan({ ...plan, hooks: [...hooks, { module: 'hooks-otel' }] });
}

/** The variable that turned telemetry on, for messages that tell the user what to unset. */
export function enablingVariable(env: Env): string {
  if (env.AMPLIFIER_OTEL !== undefined && env.AMPLIFIER_OTEL !== '') return 'AMPLIFIER_OTEL';
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : 'OTEL_EXPORTER_OTLP_ENDPOINT';
}

/** How long the probe waits for a TCP connection to the collector. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Why nothing can be exported to `endpoint` (a connection refused, a host
 * that does not resolve, no answer in 2 s), or undefined when a TCP
 * connection to it opens.
 */
export function probeCollector(endpoint: string): Promise<string | undefined> {
  const url = new URL(endpoint);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (reason: string | undefined): void => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () =>
      done(`no answer from ${host}:${port} in ${PROBE_TIMEOUT_MS / 1000} s`),
    );
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.message));
  });
}

/** The endpoint variable that is set but not an http(s) URL, with a message saying so. */
export function badEndpoint(env: Env): string | undefined {
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    let protocol: string | undefined;
    try {
      protocol = new URL(value).protocol;
    } catch {}
    if (protocol !== 'http:' && protocol !== 'https:')
      return `${name}=${value} is not an http(s) URL (e.g. http://localhost:4318): telemetry is off for this run`;
  }
  return undefined;
}

/**
 * Start the SDK and return the plan to run, or undefined when telemetry was
 * not asked for (or cannot work: `warn` says why). Export failures are
 * reported through `warn` once, at shutdown.
 */
export async function startTelemetry(
  resolved: ResolvedPlan,
  env: Env = process.env,
  warn: (message: string) => void = () => {},
): Promise<Telemetry | undefined> {
  if (!telemetryRequested(env)) return undefined;
  const bad = badEndpoint(env);
  if (bad !== undefined) {
    warn(bad);
    return undefined;
  }
  const endpoint =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || 'http://localhost:4318';
  const [
    unreachable,
    { diag, DiagLogLevel, metrics, trace },
    traceSdk,
    metricSdk,
    { OTLPTraceExporter },
    { OTLPMetricExporter },
    resources,
  ] = await Promise.all([
    probeCollector(endpoint),
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  if (unreachable !== undefined) {
    warn(
      `telemetry: no OTLP collector answers at ${endpoint} (${unreachable}); telemetry is off for this run. Start a collector there, or unset ${enablingVariable(env)}`,
    );
    return undefined;
  }
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name.
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'amplifier' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracerProvider = new traceSdk.BasicTracerProvider({
    resource,
    spanProcessors: [new traceSdk.BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const meterProvider = new metricSdk.MeterProvider({
    resource,
    readers: [new metricSdk.PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })],
  });
  // The SDK reports export failures through diag.error (silent by default): keep the first.
  let failure: string | undefined;
  const keep = (message: string): void => {
    failure ??= message;
  };
  const ignore = (): void => {};
  diag.setLogger(
    { error: keep, warn: ignore, info: ignore, debug: ignore, verbose: ignore },
    DiagLogLevel.ERROR,
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    resolved: { ...resolved, plan: withOtelHook(resolved.plan) },
    async shutdown() {
      // Each flushes what it holds; an unreachable collector must not hang or fail the run.
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      if (failure !== undefined) {
        warn(
          `telemetry: exporting to ${endpoint} failed (${firstLine(failure)}); check that an OTLP/HTTP collector listens there, or unset ${enablingVariable(env)}`,
        );
      }
    },
  };
}

/**
 * The SDK's export failure as one short line: its messages may carry a JSON
 * dump of the error (with a stack); the first `message` in it, else the first
 * line, at most 200 characters.
 */
function firstLine(failure: string): string {
  const quoted = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(failure)?.[1];
  const text = quoted ?? failure.split('\n')[0] ?? failure;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
