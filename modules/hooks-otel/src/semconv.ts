/**
 * The names of the OpenTelemetry GenAI semantic conventions this module
 * writes (https://opentelemetry.io/docs/specs/semconv/gen-ai/), kept here
 * rather than importing `@opentelemetry/semantic-conventions`, whose GenAI
 * names are still in its unstable entry point. Amplifier's own attributes
 * start with `amplifier.`.
 */

export const OPERATION_NAME = 'gen_ai.operation.name';
export const PROVIDER_NAME = 'gen_ai.provider.name';
export const REQUEST_MODEL = 'gen_ai.request.model';
export const RESPONSE_MODEL = 'gen_ai.response.model';
export const RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const CONVERSATION_ID = 'gen_ai.conversation.id';
export const AGENT_NAME = 'gen_ai.agent.name';
export const AGENT_ID = 'gen_ai.agent.id';
export const TOOL_NAME = 'gen_ai.tool.name';
export const TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const TOOL_TYPE = 'gen_ai.tool.type';
export const TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const INPUT_MESSAGES = 'gen_ai.input.messages';
export const OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const TOKEN_TYPE = 'gen_ai.token.type';
export const ERROR_TYPE = 'error.type';

export const OP_CHAT = 'chat';
export const OP_EXECUTE_TOOL = 'execute_tool';
export const OP_INVOKE_AGENT = 'invoke_agent';

/** Metric names, units and the bucket boundaries the conventions advise. */
export const METRIC_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const TOKEN_USAGE_BUCKETS: readonly number[] = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** Amplifier's own attributes. */
export const SESSION_ID = 'amplifier.session.id';
export const PARENT_SESSION_ID = 'amplifier.session.parent_id';
export const SESSION_STATUS = 'amplifier.session.status';
export const TURN_NUMBER = 'amplifier.turn.number';
export const TURN_STATUS = 'amplifier.turn.status';
export const TURN_ITERATIONS = 'amplifier.turn.iterations';
export const ITERATION = 'amplifier.provider.iteration';
export const PARALLEL_GROUP_ID = 'amplifier.tool.parallel_group_id';
export const COST_USD = 'amplifier.usage.cost_usd';
