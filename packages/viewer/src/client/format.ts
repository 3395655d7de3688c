/** How numbers and values read on the page. */

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  if (usd === 0) return '$0';
  // Agent sessions often cost cents: four decimals below a dollar.
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A value as text to show in a <pre>: strings as they are, the rest as indented JSON. */
export function asText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A tool's input, output or result for people (in a <pre>, never as HTML):
 * text as it is; an object, or a string holding a JSON object or array (how
 * tool results are stored), as `key: value` lines where a text value keeps
 * its line breaks and tabs (indented under its key) instead of showing them
 * as `\n` and `\t`; anything else as indented JSON.
 */
export function readable(value: unknown, depth = 0): string {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (depth === 0 && /^[[{]/.test(trimmed)) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (parsed !== null && typeof parsed === 'object') return readable(parsed, depth + 1);
      } catch {
        // Text that only starts like JSON: shown as it is.
      }
    }
    return value;
  }
  if (value === null || typeof value !== 'object' || depth > 4) return asText(value);
  const entries = Array.isArray(value)
    ? value.map((item, i) => [`[${i}]`, item] as const)
    : Object.entries(value);
  if (entries.length === 0 || !hasLayoutText(value, depth)) return asText(value);
  return entries
    .map(([key, item]) => {
      if (typeof item === 'string' && /[\n\t]/.test(item)) return `${key}:\n${indent(item)}`;
      const text = typeof item === 'string' ? item : readable(item, depth + 1);
      return text.includes('\n') ? `${key}:\n${indent(text)}` : `${key}: ${text}`;
    })
    .join('\n');
}

/** Whether a string with a line break or a tab is anywhere in `value` (down to the depth `readable` follows). */
function hasLayoutText(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return /[\n\t]/.test(value);
  if (value === null || typeof value !== 'object' || depth > 4) return false;
  return Object.values(value).some((item) => hasLayoutText(item, depth + 1));
}

function indent(text: string): string {
  return text.replace(/\n$/, '').replace(/^/gm, '  ');
}

/** One line of a value, at most `max` characters. */
export function oneLine(value: unknown, max = 120): string {
  const text = asText(value).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
