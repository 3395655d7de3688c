/**
 * Azure OpenAI's content-filter annotations: `prompt_filter_results` (per
 * prompt) and per-choice `content_filter_results` of Chat Completions, kept as
 * response metadata, and the categories that fired, named in errors. Other
 * OpenAI-compatible servers never send them, so reading them costs a property
 * check per chunk.
 */

type Json = Record<string, unknown>;

/** Response metadata keys. */
export const PROMPT_FILTERS_KEY = 'azure:prompt_filter_results';
export const COMPLETION_FILTERS_KEY = 'azure:content_filter_results';

const SEVERITIES = ['safe', 'low', 'medium', 'high'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** How much one category's result says: filtered > detected > severity. */
function weight(entry: unknown): number {
  if (!isObject(entry)) return -1;
  return (
    (entry.filtered === true ? 100 : 0) +
    (entry.detected === true ? 10 : 0) +
    SEVERITIES.indexOf(String(entry.severity ?? ''))
  );
}

/**
 * The results of a streamed answer's chunks as one: per category, the entry
 * that says most (a filter that fired on one chunk stays fired), later ones on ties.
 */
export function mergeFilterResults(previous: Json | undefined, next: unknown): Json | undefined {
  if (!isObject(next)) return previous;
  const merged: Json = { ...previous };
  for (const [category, entry] of Object.entries(next)) {
    if (!Object.hasOwn(merged, category) || weight(entry) >= weight(merged[category]))
      Object.defineProperty(merged, category, {
        value: entry,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return merged;
}

/** The metadata of the filter results a response carried (nothing when it carried none). */
export function filterMetadata(prompt: unknown, completion: Json | undefined): Json {
  const out: Json = {};
  if (Array.isArray(prompt)) out[PROMPT_FILTERS_KEY] = prompt;
  if (completion !== undefined && Object.keys(completion).length > 0)
    out[COMPLETION_FILTERS_KEY] = completion;
  return out;
}

/**
 * `violence (high, filtered), jailbreak (detected, filtered)`: the categories that were filtered or
 * detected in a results object (`{hate: {filtered, severity}, ...}`), or undefined when none.
 */
export function firedCategories(results: unknown): string | undefined {
  if (!isObject(results)) return undefined;
  const fired: string[] = [];
  for (const [category, entry] of Object.entries(results)) {
    if (!isObject(entry) || (entry.filtered !== true && entry.detected !== true)) continue;
    const how = [
      typeof entry.severity === 'string' && entry.severity !== 'safe' ? entry.severity : undefined,
      entry.detected === true ? 'detected' : undefined,
      entry.filtered === true ? 'filtered' : undefined,
    ];
    fired.push(`${category} (${how.filter((h) => h !== undefined).join(', ')})`);
  }
  return fired.length > 0 ? fired.join(', ') : undefined;
}
