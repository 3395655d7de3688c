/**
 * The GenAI client metrics: `gen_ai.client.token.usage` (tokens, one record
 * per token type) and `gen_ai.client.operation.duration` (seconds), histograms
 * with the bucket boundaries the conventions advise.
 */
import type { Attributes, Histogram, Meter } from '@opentelemetry/api';
import {
  DURATION_BUCKETS,
  METRIC_OPERATION_DURATION,
  METRIC_TOKEN_USAGE,
  TOKEN_TYPE,
  TOKEN_USAGE_BUCKETS,
} from './semconv.js';

export class GenAiMetrics {
  readonly #tokens: Histogram;
  readonly #duration: Histogram;

  constructor(meter: Meter) {
    this.#tokens = meter.createHistogram(METRIC_TOKEN_USAGE, {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: [...TOKEN_USAGE_BUCKETS] },
    });
    this.#duration = meter.createHistogram(METRIC_OPERATION_DURATION, {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
  }

  /** One finished operation: its duration, and its tokens when the provider reported them. */
  record(attributes: Attributes, seconds: number, input?: number, output?: number): void {
    this.#duration.record(seconds, attributes);
    if (input !== undefined) this.#tokens.record(input, { ...attributes, [TOKEN_TYPE]: 'input' });
    if (output !== undefined) this.#tokens.record(output, { ...attributes, [TOKEN_TYPE]: 'output' });
  }
}
