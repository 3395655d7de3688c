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

/**
 * Which keywords a text holds, in one pass over its characters whatever the
 * number of keywords (Aho-Corasick, as gitleaks' prefilter): a table of
 * transitions over ASCII, letters folded to lower case. A character outside
 * ASCII starts over (keywords are ASCII).
 */
export class KeywordIndex {
  /** The keywords (lower case), in the order given, without repeats. */
  readonly words: readonly string[];
  /** `state * 128 + char` → next state. */
  readonly #next: Int32Array;
  /** Per state: the keywords (indexes into `words`) that end there (none: empty). */
  readonly #out: readonly (readonly number[])[];
  /** Per state: 1 when some keyword ends there. */
  readonly #ends: Uint8Array;

  constructor(keywords: readonly string[]) {
    this.words = [...new Set(keywords.map((k) => k.toLowerCase()))];
    const children: Map<number, number>[] = [new Map()];
    const own: number[][] = [[]];
    this.words.forEach((word, index) => {
      if (word === '' || !/^[\x00-\x7f]+$/.test(word)) {
        throw new TypeError(`A secret rule keyword must be non-empty ASCII; found ${JSON.stringify(word)}.`);
      }
      let state = 0;
      for (let i = 0; i < word.length; i++) {
        const char = word.charCodeAt(i);
        let next = (children[state] as Map<number, number>).get(char);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          own.push([]);
          (children[state] as Map<number, number>).set(char, next);
        }
        state = next;
      }
      (own[state] as number[]).push(index);
    });
    const states = children.length;
    // Characters in no keyword lead back to the start from every state: the zeros the table starts with.
    const alphabet = [...new Set(this.words.join(''))].map((char) => char.charCodeAt(0));
    const next = new Int32Array(states * 128);
    const fail = new Int32Array(states);
    const out: (readonly number[] | undefined)[] = new Array(states).fill(undefined);
    // Breadth first: a state's fail link and transitions are known before its children's.
    const queue: number[] = [0];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head] as number;
      const mine = own[state] as number[];
      const inherited = state === 0 ? undefined : out[fail[state] as number];
      out[state] = mine.length === 0 ? inherited : inherited === undefined ? mine : [...mine, ...inherited];
      for (const char of alphabet) {
        const child = (children[state] as Map<number, number>).get(char);
        const fallback = state === 0 ? 0 : (next[(fail[state] as number) * 128 + char] as number);
        if (child === undefined) {
          next[state * 128 + char] = fallback;
        } else {
          next[state * 128 + char] = child;
          fail[child] = state === 0 ? 0 : fallback;
          queue.push(child);
        }
      }
    }
    // Upper-case letters go where their lower-case letters go.
    const letters = alphabet.filter((char) => char >= 97 && char <= 122);
    for (let state = 0; state < states; state++) {
      for (const char of letters) next[state * 128 + char - 32] = next[state * 128 + char] as number;
    }
    this.#next = next;
    this.#out = out.map((ends) => ends ?? []);
    this.#ends = Uint8Array.from(out, (ends) => (ends === undefined ? 0 : 1));
  }

  /** True when `text` holds some keyword (stops at the first). */
  any(text: string): boolean {
    const next = this.#next;
    const ends = this.#ends;
    const length = text.length;
    let state = 0;
    for (let i = 0; i < length; i++) {
      const char = text.charCodeAt(i);
      state = char < 128 ? (next[(state << 7) | char] as number) : 0;
      if (ends[state] === 1) return true;
    }
    return false;
  }

  /** Per keyword (index into `words`), whether `text` holds it; undefined when it holds none. */
  which(text: string): Uint8Array | undefined {
    const next = this.#next;
    const ends = this.#ends;
    const length = text.length;
    let found: Uint8Array | undefined;
    let state = 0;
    for (let i = 0; i < length; i++) {
      const char = text.charCodeAt(i);
      state = char < 128 ? (next[(state << 7) | char] as number) : 0;
      if (ends[state] === 0) continue;
      found ??= new Uint8Array(this.words.length);
      for (const index of this.#out[state] as readonly number[]) found[index] = 1;
    }
    return found;
  }
}

/** Finds (and replaces) the secrets of a fixed list of rules in text. Stateless after construction. */
export class SecretScanner {
  readonly rules: readonly SecretRule[];
  /** Every keyword of every rule; undefined when some rule has none (every text is a candidate). */
  readonly #index: KeywordIndex | undefined;
  /** Per keyword (index into the index's words): the rules (indexes) it lets run. */
  readonly #rulesOf: readonly (readonly number[])[];

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
    const always = this.rules.some((rule) => rule.keywords.length === 0);
    const index = new KeywordIndex(this.rules.flatMap((rule) => rule.keywords));
    this.#index = always || index.words.length === 0 ? undefined : index;
    const rulesOf: number[][] = index.words.map(() => []);
    this.rules.forEach((rule, r) => {
      for (const word of rule.keywords)
        (rulesOf[index.words.indexOf(word.toLowerCase())] as number[]).push(r);
    });
    this.#rulesOf = rulesOf;
  }

  /** False when no rule can match `text` (no keyword occurs): the one-pass prefilter. */
  mayContain(text: string): boolean {
    return this.#index === undefined || this.#index.any(text);
  }

  /** The secrets in `text`, in order, overlapping matches merged (named after the first rule listed). */
  find(text: string): SecretMatch[] {
    if (text.length === 0) return [];
    const count = this.rules.length;
    let run: Uint8Array;
    if (this.#index === undefined) {
      run = new Uint8Array(count).fill(1);
    } else {
      const hits = this.#index.which(text);
      if (hits === undefined) return [];
      run = new Uint8Array(count);
      for (let word = 0; word < hits.length; word++) {
        if (hits[word] === 1) for (const r of this.#rulesOf[word] as readonly number[]) run[r] = 1;
      }
    }
    const found: Array<SecretMatch & { order: number }> = [];
    let order = 0;
    const report = (start: number, end: number): void => {
      const s = Math.max(0, Math.min(start, text.length));
      const e = Math.max(s, Math.min(end, text.length));
      if (e > s) found.push({ rule: (this.rules[order] as SecretRule).id, start: s, end: e, order });
    };
    for (order = 0; order < count; order++) {
      if (run[order] === 0) continue;
      try {
        (this.rules[order] as SecretRule).find(text, report);
      } catch {
        // A rule that fails on some text finds nothing in it; the other rules still run.
      }
    }
    if (found.length === 0) return [];
    if (found.length > 1) found.sort((a, b) => a.start - b.start || a.order - b.order);
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
