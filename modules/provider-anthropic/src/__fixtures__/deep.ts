/** Deep data for tests (core's test kit builds the values): JSON text too deep for JSON.stringify. */

/** `{"a":{"a":...1...}}` nested `depth` deep, as JSON text (JSON.stringify would overflow the stack). */
export function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
