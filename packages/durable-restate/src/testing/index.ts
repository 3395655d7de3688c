/**
 * @amplifier/durable-restate/testing: for tests and benchmarks, an HTTP/2
 * load balancer that spreads Restate's invocations over several workers.
 */
export type { Balancer } from './balancer.js';
export { startBalancer } from './balancer.js';
