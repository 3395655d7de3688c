/**
 * `exclude_events` matching. Patterns made only of event-name characters and
 * single `*` wildcards (the default `llm:stream_*delta` is one) become a
 * regular expression here, exactly as picomatch builds it (`*`: any run of
 * characters but `/`); anything else (`?`, `[…]`, braces, `**`, negation,
 * escapes) is handed to picomatch, which is then required. picomatch costs
 * ~10 ms of start-up, and the default config never needs it.
 */
import { createRequire } from 'node:module';
import type picomatchFn from 'picomatch';

const require = createRequire(import.meta.url);

/**
 * A letter or digit first (picomatch has extra rules for a leading `*` or
 * `.`), then literal characters of event names and `*` not next to another `*`.
 */
const SIMPLE = /^[A-Za-z0-9](?:[A-Za-z0-9:_.-]|\*(?!\*))*$/;

/** True when picomatch is needed for `pattern` (exported for tests). */
export function needsPicomatch(pattern: string): boolean {
  // On Windows picomatch also treats `\` as a separator; keep its rules there.
  return process.platform === 'win32' || !SIMPLE.test(pattern);
}

function simpleRegex(pattern: string): string {
  return pattern.replace(/[.:-]/g, '\\$&').replace(/\*/g, '[^/]*?');
}

function picomatcher(patterns: readonly string[]): (name: string) => boolean {
  const picomatch = require('picomatch') as typeof picomatchFn;
  return picomatch([...patterns], { dot: true, nobrace: false });
}

/** A matcher for event names: true when `name` matches one of `patterns`. */
export function eventMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  if (patterns.some(needsPicomatch)) return picomatcher(patterns);
  const regex = new RegExp(`^(?:${patterns.map(simpleRegex).join('|')})$`);
  let paths: ((name: string) => boolean) | undefined;
  return (name) => {
    // Path-like names (`a/b`, `.`, `..`) follow picomatch's segment rules: ask it.
    if (name.includes('/') || name === '.' || name === '..') {
      paths ??= picomatcher(patterns);
      return paths(name);
    }
    return regex.test(name);
  };
}
