/**
 * An OTLP/HTTP receiver on 127.0.0.1 for tests of telemetry exporters: it
 * accepts `POST /v1/traces` and `POST /v1/metrics` in the JSON encoding (what
 * `@opentelemetry/exporter-*-otlp-http` sends), decodes the spans into plain
 * objects (hex ids, attributes as values) and keeps the metric payloads as
 * they arrived. Anything else is answered 415 or 404 and recorded, so a test
 * sees why nothing arrived.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as received: ids in hex, attributes decoded from OTLP's `AnyValue`. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's enum: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  events: { name: string; attributes: Record<string, unknown> }[];
  /** The instrumentation scope's name. */
  scope: string;
  /** The resource's attributes (`service.name`, ...). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  readonly spans: OtlpSpan[];
  /** Each `/v1/metrics` body, parsed. */
  readonly metrics: unknown[];
  /** Every request: path, content type, status answered. */
  readonly requests: { path: string; contentType: string; status: number }[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const metrics: unknown[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const contentType = String(req.headers['content-type'] ?? '');
      const answer = (status: number, body: string): void => {
        requests.push({ path, contentType, status });
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      };
      if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics'))
        return answer(404, '{"error":"POST /v1/traces or /v1/metrics"}');
      if (!contentType.startsWith('application/json'))
        return answer(415, '{"error":"this test receiver decodes the JSON encoding only"}');
      let body: Json;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      } catch {
        return answer(400, '{"error":"not JSON"}');
      }
      if (path === '/v1/metrics') metrics.push(body);
      else spans.push(...decodeTraces(body));
      answer(200, '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decodeTraces(body: Json): OtlpSpan[] {
  const out: OtlpSpan[] = [];
  for (const rs of list(body.resourceSpans)) {
    const resource = attributesOf((rs.resource as Json | undefined)?.attributes);
    for (const ss of list(rs.scopeSpans)) {
      const scope = String((ss.scope as Json | undefined)?.name ?? '');
      for (const s of list(ss.spans)) {
        const parent =
          typeof s.parentSpanId === 'string' && s.parentSpanId !== '' ? s.parentSpanId : undefined;
        const status = (s.status as Json | undefined) ?? {};
        out.push({
          traceId: String(s.traceId),
          spanId: String(s.spanId),
          parentSpanId: parent,
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          attributes: attributesOf(s.attributes),
          status: {
            code: Number(status.code ?? 0),
            ...(typeof status.message === 'string' && { message: status.message }),
          },
          events: list(s.events).map((e) => ({
            name: String(e.name),
            attributes: attributesOf(e.attributes),
          })),
          scope,
          resource,
        });
      }
    }
  }
  return out;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

function attributesOf(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list(value)) out[String(kv.key)] = anyValue(kv.value as Json | undefined);
  return out;
}

/** OTLP's `AnyValue` in its JSON form (64-bit integers may arrive as strings). */
function anyValue(value: Json | undefined): unknown {
  if (value === undefined) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) return list((value.arrayValue as Json | undefined)?.values).map(anyValue);
  if ('kvlistValue' in value) return attributesOf((value.kvlistValue as Json | undefined)?.values);
  return undefined;
}
