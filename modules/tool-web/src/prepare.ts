/**
 * The linear pre-pass before HTML is parsed: comments, `<script>` and
 * `<style>` are dropped, and start tags nested deeper than `MAX_DEPTH` are
 * removed. HTML parsers that follow the spec check "in scope" by walking the
 * stack of open elements, so their cost grows with depth squared (100k nested
 * `<div>`s took two minutes in domino); bounding the depth first keeps parsing
 * linear and the converters' recursion shallow.
 */

/** Deepest element nesting kept; deeper start tags are dropped (their text stays). */
export const MAX_DEPTH = 200;

const VOID = new Set(
  'area base br col embed hr img input link meta param source track wbr keygen frame basefont bgsound'.split(
    ' ',
  ),
);
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'plaintext',
]);
const SPECIAL = new Set(
  (
    'address applet area article aside base basefont bgsound blockquote body br button caption center col colgroup ' +
    'dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head ' +
    'header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav noembed noframes ' +
    'noscript object ol p param plaintext pre script section select source style summary table tbody td template ' +
    'textarea tfoot th thead title tr track ul wbr xmp'
  ).split(' '),
);
const SCOPE = new Set(['applet', 'caption', 'html', 'table', 'td', 'th', 'marquee', 'object', 'template']);
const TABLE_PARTS = new Set(['table', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'caption', 'colgroup']);
const TABLE_SCOPE = new Set(['html', 'table', 'template']);
const CLOSES_P = new Set(
  (
    'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header ' +
    'hgroup main menu nav ol p section summary ul h1 h2 h3 h4 h5 h6 pre listing form hr xmp table'
  ).split(' '),
);
/** Start tags that close an open element of the same group (and what stops the search). */
const IMPLIED: Record<string, { closes: string[]; stop: ReadonlySet<string> }> = {
  li: { closes: ['li'], stop: new Set(['ul', 'ol', 'menu']) },
  dt: { closes: ['dt', 'dd'], stop: new Set(['dl']) },
  dd: { closes: ['dt', 'dd'], stop: new Set(['dl']) },
  td: { closes: ['td', 'th'], stop: new Set(['tr', 'table']) },
  th: { closes: ['td', 'th'], stop: new Set(['tr', 'table']) },
  tr: { closes: ['tr'], stop: new Set(['table', 'tbody', 'thead', 'tfoot']) },
  tbody: { closes: ['tbody', 'thead', 'tfoot'], stop: new Set(['table']) },
  thead: { closes: ['tbody', 'thead', 'tfoot'], stop: new Set(['table']) },
  tfoot: { closes: ['tbody', 'thead', 'tfoot'], stop: new Set(['table']) },
  option: { closes: ['option'], stop: new Set(['select', 'datalist']) },
  optgroup: { closes: ['option', 'optgroup'], stop: new Set(['select']) },
};

const rawTextEnds = new Map<string, RegExp>();
/** Finds the end tag of a raw-text element (case-insensitive), from `lastIndex`. */
function rawTextEnd(name: string): RegExp {
  let re = rawTextEnds.get(name);
  if (re === undefined) {
    re = new RegExp(`</${name}[^>]{0,4096}>`, 'gi');
    rawTextEnds.set(name, re);
  }
  return re;
}

/** The stack of open elements, with a count per name so "is one open?" costs O(1). */
class OpenElements {
  readonly names: string[] = [];
  readonly #counts = new Map<string, number>();

  push(name: string): void {
    this.names.push(name);
    this.#counts.set(name, (this.#counts.get(name) ?? 0) + 1);
  }
  /** Pop everything from index `at` up. */
  truncate(at: number): void {
    while (this.names.length > at) {
      const name = this.names.pop()!;
      this.#counts.set(name, this.#counts.get(name)! - 1);
    }
  }
  /** Index of the nearest of `names`, searching down to a `stop` element; -1 if none. */
  find(names: readonly string[], stop: ReadonlySet<string>): number {
    if (!names.some((n) => (this.#counts.get(n) ?? 0) > 0)) return -1;
    for (let i = this.names.length - 1; i >= 0; i--) {
      const name = this.names[i]!;
      if (names.includes(name)) return i;
      if (stop.has(name)) return -1;
    }
    return -1;
  }
}

function isNameEnd(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13 || c === 47 || c === 62;
}

/**
 * Prepare HTML for the parser in one linear pass: drop comments and
 * `<script>`/`<style>` elements, and remove start tags nested deeper than
 * `maxDepth`, following the HTML tree rules closely enough (implied ends,
 * scope, special elements) to track the depth a parser would build. Other
 * text is never removed.
 */
export function prepareHtml(html: string, maxDepth: number = MAX_DEPTH): string {
  const open = new OpenElements();
  const stack = open.names;
  const out: string[] = [];
  let copied = 0;
  let gt = -1;
  let i = html.indexOf('<');
  while (i !== -1 && i < html.length) {
    const next = html.charCodeAt(i + 1);
    if (next === 33 /* ! */) {
      const comment = html.startsWith('<!--', i);
      const end = comment ? html.indexOf('-->', i + 4) : html.indexOf('>', i + 2);
      if (end === -1) break;
      if (comment) {
        out.push(html.slice(copied, i));
        copied = end + 3;
      }
      i = html.indexOf('<', end);
      continue;
    }
    const closing = next === 47; /* / */
    // The tag ends at the next '>'; remembered so a run of '<' without '>' stays linear.
    if (gt < i) gt = html.indexOf('>', i);
    if (gt === -1) break;
    const start = closing ? i + 2 : i + 1;
    const first = html.charCodeAt(start) | 0x20;
    if (first < 97 || first > 122) {
      i = html.indexOf('<', i + 1);
      continue;
    }
    let stop = start + 1;
    while (stop < gt && stop - start < 64 && !isNameEnd(html.charCodeAt(stop))) stop++;
    const name = html.slice(start, stop).toLowerCase();
    const end = gt + 1;
    if (closing) {
      let at = -1;
      if (TABLE_PARTS.has(name)) {
        at = open.find([name], TABLE_SCOPE);
      } else if (SPECIAL.has(name)) {
        at = open.find([name], SCOPE);
      } else {
        at = open.find([name], SPECIAL);
      }
      if (at !== -1) open.truncate(at);
    } else if (name === 'script' || name === 'style') {
      // Never content: dropped with their text before parsing (cheaper than parsing them).
      const closer = rawTextEnd(name);
      closer.lastIndex = end;
      const close = closer.exec(html);
      out.push(html.slice(copied, i));
      copied = close === null ? html.length : close.index + close[0].length;
      if (close === null) break;
      i = html.indexOf('<', copied);
      continue;
    } else if (name !== 'html' && name !== 'head' && name !== 'body') {
      const implied = IMPLIED[name];
      if (implied) {
        const at = open.find(implied.closes, implied.stop);
        if (at !== -1) open.truncate(at);
      }
      if (CLOSES_P.has(name)) {
        const at = open.find(['p'], SCOPE);
        if (at !== -1) open.truncate(at);
      }
      if (!VOID.has(name)) {
        if (stack.length >= maxDepth) {
          out.push(html.slice(copied, i));
          copied = end;
        } else {
          open.push(name);
        }
      }
      if (RAW_TEXT.has(name)) {
        const closer = rawTextEnd(name);
        closer.lastIndex = end;
        const close = closer.exec(html);
        if (close === null) break;
        if (stack[stack.length - 1] === name) open.truncate(stack.length - 1);
        i = html.indexOf('<', close.index + close[0].length);
        continue;
      }
    }
    i = html.indexOf('<', end);
  }
  if (copied === 0) return html;
  if (copied < html.length) out.push(html.slice(copied));
  return out.join('');
}
