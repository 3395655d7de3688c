/**
 * @amplifier/hooks-otel: OpenTelemetry spans and metrics for Amplifier
 * sessions, following the GenAI semantic conventions. It writes through
 * `@opentelemetry/api` only, so whatever SDK and exporter the app registered
 * receive them (none registered: the API's no-op, nearly free).
 */
import { type Cleanup, type Coordinator, events as E } from '@amplifier/core';
import { metrics, trace } from '@opentelemetry/api';
import { parseConfig } from './config.js';
import { GenAiMetrics } from './metrics.js';
import { SessionTracer } from './session-tracer.js';

export type { OtelConfig } from './config.js';
export { CONFIG_SCHEMA, DEFAULTS, parseConfig } from './config.js';
export { SessionTracer } from './session-tracer.js';

/**
 * Register the handlers that turn the session's events into spans. The
 * cleanup ends whatever is still open (a session cleaned up without
 * `session:end`) and unregisters.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  const settings = parseConfig(config, coordinator.logger);
  const scope = settings.instrumentation_name;
  const tracer = new SessionTracer(
    trace.getTracer(scope),
    settings.metrics ? new GenAiMetrics(metrics.getMeter(scope)) : undefined,
    settings,
  );
  const hooks = coordinator.hooks;
  const options = { priority: settings.priority, name: 'hooks-otel' };
  const off = [
    hooks.register(E.SESSION_FORK, (_e, data) => tracer.startSession(data), options),
    hooks.register(E.SESSION_START, (_e, data) => tracer.startSession(data), options),
    hooks.register(E.SESSION_RESUME, (_e, data) => tracer.startSession(data), options),
    hooks.register(E.SESSION_END, (_e, data) => tracer.endSession(data), options),
    hooks.register(E.PROMPT_SUBMIT, (_e, data) => tracer.startTurn(data), options),
    hooks.register(E.ORCHESTRATOR_COMPLETE, (_e, data) => tracer.finishTurn(data), options),
    hooks.register(E.CANCEL_REQUESTED, (_e, data) => tracer.cancelRequested(data), options),
    hooks.register(E.CANCEL_COMPLETED, (_e, data) => tracer.cancelCompleted(data), options),
    hooks.register(E.PROVIDER_REQUEST, (_e, data) => tracer.providerRequest(data), options),
    hooks.register(E.PROVIDER_RESPONSE, (_e, data) => tracer.providerResponse(data), options),
    hooks.register(E.PROVIDER_ERROR, (_e, data) => tracer.providerError(data), options),
    hooks.register(E.PROVIDER_RETRY, (_e, data) => tracer.providerRetry(data), options),
    hooks.register(E.LLM_REQUEST, (_e, data) => tracer.llmRequest(data), options),
    hooks.register(E.LLM_RESPONSE, (_e, data) => tracer.llmResponse(data), options),
    hooks.register(E.TOOL_PRE, (_e, data) => tracer.toolPre(data), options),
    hooks.register(E.TOOL_POST, (_e, data) => tracer.toolPost(data), options),
    hooks.register(E.TOOL_ERROR, (_e, data) => tracer.toolError(data), options),
  ];
  if (settings.capture_content) {
    off.push(
      hooks.register(E.PROMPT_COMPLETE, (_e, data) => tracer.completeTurn(data), options),
      hooks.register(E.CONTENT_BLOCK_END, (_e, data) => tracer.contentBlock(data.block), options),
    );
  }
  return () => {
    for (const unregister of off) unregister();
    tracer.endSession();
  };
}
