/**
 * The scanner: a fixed list of secret-format rules, each with the literal
 * keywords one of which occurs wherever it can match (gitleaks' prefilter).
 * One regular expression of every keyword, built once, rejects the text that
 * no rule can match (most text) in one pass; otherwise only the rules whose
 * keyword occurs run. Matches of several rules that overlap become one span,
 * named after the rule listed first.
 */

/** A span of text that a rule found to be a secret (`end` exclusive). */
export interface SecretMatch {
  /** The rule's id (snake_case): `stripe`, `github`, `jwt`. */
  rule: string;
  start: number;
  end: number;
}

/** Where a rule comes from: secretlint's recommended preset, or this kit's supplement. */
export type SecretRuleOrigin = 'secretlint' | 'supplement';

/** One secret format. */
export interface SecretRule {
  /** snake_case, unique; what `[REDACTED:<id>]` names. */
  readonly id: string;
  readonly origin: SecretRuleOrigin;
  /** What the rule finds, for people (READMEs, `amplifier` diagnostics). */
  readonly description: string;
  /**
   * Lower-case literals, one of which occurs (compared case-insensitively) in
   * every text the rule can match. Empty: the rule runs on every text.
   */
  readonly keywords: readonly string[];
  /** Calls `report` with each span it finds in `text`; never throws for any text. */
  find(text: string, report: (start: number, end: number) => void): void;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * One pattern for a set of literals, their common prefixes factored out
 * (`sk_(?:live|test)`): irregexp then tries a handful of first characters at
 * each position instead of every keyword.
 */
export function keywordPattern(keywords: readonly string[]): string {
  interface Node {
    end: boolean;
    next: Map<string, Node>;
  }
  const root: Node = { end: false, next: new Map() };
  for (const word of keywords) {
    let node = root;
    for (const char of word) {
      let child = node.next.get(char);
      if (child === undefined) {
        child = { end: false, next: new Map() };
        node.next.set(char, child);
      }
      node = child;
    }
    node.end = true;
  }
  const emit = (node: Node): string => {
    // A keyword that ends here makes every longer one redundant (the text has the shorter one).
    if (node.end) return '';
    const branches = [...node.next].map(([char, child]) => escapeRegex(char) + emit(child));
    return branches.length === 1 ? (branches[0] as string) : `(?:${branches.join('|')})`;
  };
  return emit(root);
}

/** Finds (and replaces) the secrets of a fixed list of rules in text. Stateless after construction. */
export class SecretScanner {
  readonly rules: readonly SecretRule[];
  /** Any keyword of any rule; undefined when some rule has none (every text is a candidate). */
  readonly #gate: RegExp | undefined;
  /** Per rule, its keywords (lower case); empty: always runs. */
  readonly #keywords: readonly (readonly string[])[];

  constructor(rules: readonly SecretRule[]) {
    const ids = new Set<string>();
    for (const rule of rules) {
      if (!/^\w+$/.test(rule.id)) {
        throw new TypeError(
          `A secret rule id must be letters, digits and _ (it names [REDACTED:<id>]); found "${rule.id}".`,
        );
      }
      if (ids.has(rule.id))
        throw new TypeError(`Two secret rules share the id "${rule.id}"; give each its own.`);
      ids.add(rule.id);
    }
    this.rules = [...rules];
    this.#keywords = this.rules.map((rule) => rule.keywords.map((k) => k.toLowerCase()));
    const always = this.#keywords.some((words) => words.length === 0);
    this.#gate = always ? undefined : new RegExp(keywordPattern([...new Set(this.#keywords.flat())]), 'i');
  }

  /** False when no rule can match `text` (no keyword occurs): the one-pass prefilter. */
  mayContain(text: string): boolean {
    return this.#gate === undefined || this.#gate.test(text);
  }

  /** The secrets in `text`, in order, overlapping matches merged (named after the first rule listed). */
  find(text: string): SecretMatch[] {
    if (text.length === 0 || !this.mayContain(text)) return [];
    const lower = text.toLowerCase();
    const found: Array<SecretMatch & { order: number }> = [];
    for (let i = 0; i < this.rules.length; i++) {
      const words = this.#keywords[i] as readonly string[];
      if (words.length > 0 && !words.some((word) => lower.includes(word))) continue;
      const rule = this.rules[i] as SecretRule;
      try {
        rule.find(text, (start, end) => {
          const s = Math.max(0, Math.min(start, text.length));
          const e = Math.max(s, Math.min(end, text.length));
          if (e > s) found.push({ rule: rule.id, start: s, end: e, order: i });
        });
      } catch {
        // A rule that fails on some text finds nothing in it; the other rules still run.
      }
    }
    if (found.length === 0) return [];
    found.sort((a, b) => a.start - b.start || a.order - b.order);
    const merged: SecretMatch[] = [];
    let current: SecretMatch | undefined;
    for (const { rule, start, end } of found) {
      if (current !== undefined && start < current.end) {
        if (end > current.end) current.end = end;
        continue;
      }
      current = { rule, start, end };
      merged.push(current);
    }
    return merged;
  }

  /** True when `text` holds a secret of some rule. */
  test(text: string): boolean {
    return this.find(text).length > 0;
  }

  /**
   * `text` with every secret replaced by `mark(ruleId)` (default
   * `[REDACTED:<rule id>]`); adds the ids of the rules that fired to `fired`.
   */
  redact(
    text: string,
    fired?: Set<string>,
    mark: (rule: string) => string = (rule) => `[REDACTED:${rule}]`,
  ): string {
    const matches = this.find(text);
    if (matches.length === 0) return text;
    let out = '';
    let at = 0;
    for (const { rule, start, end } of matches) {
      out += text.slice(at, start) + mark(rule);
      at = end;
      fired?.add(rule);
    }
    return out + text.slice(at);
  }
}
