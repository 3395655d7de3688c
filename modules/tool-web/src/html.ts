/**
 * HTML to readable Markdown or plain text. The page is parsed with domino (the
 * DOM turndown itself uses in Node), noise (scripts, styles, navigation,
 * footers, hidden elements) is removed, links are made absolute, and turndown
 * with the GFM plugin writes Markdown (headings, links, lists, code, tables).
 * `prepareHtml` (prepare.ts) runs first and bounds the nesting depth.
 */
import { createRequire } from 'node:module';
import TurndownService from 'turndown';
import { prepareHtml } from './prepare.js';

// ------------------------------------------------------------- minimal DOM

interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly data?: string;
  readonly textContent: string | null;
  removeChild(child: DomNode): DomNode;
}
interface DomElement extends DomNode {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  querySelector(selector: string): DomElement | null;
}
interface DomDocument extends DomElement {
  readonly title: string;
  readonly body: DomElement | null;
  readonly documentElement: DomElement;
}

const require = createRequire(import.meta.url);
const domino = require('@mixmark-io/domino') as {
  createDocument(html: string, force?: boolean): DomDocument;
};
const { gfm } = require('@joplin/turndown-plugin-gfm') as { gfm: TurndownService.Plugin };

// ------------------------------------------------------------- cleaning

/** Elements that are never content. */
const NOISE_TAGS = new Set(
  (
    'SCRIPT STYLE NOSCRIPT TEMPLATE IFRAME OBJECT EMBED SVG CANVAS NAV FOOTER ASIDE DIALOG BUTTON SELECT ' +
    'INPUT TEXTAREA LINK META'
  ).split(' '),
);
const NOISE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search']);

/** `value` made absolute against `base`, or null when it is script, data, or unusable. */
function absolute(value: string, base: string): string | null {
  try {
    const url = new URL(value, base);
    if (url.protocol === 'javascript:' || url.protocol === 'data:' || url.protocol === 'vbscript:')
      return null;
    return url.href;
  } catch {
    return null;
  }
}

function isNoise(el: DomElement, inContent: boolean): boolean {
  const name = el.nodeName;
  if (NOISE_TAGS.has(name)) return true;
  if (name === 'HEADER' && !inContent) return true;
  if (el.getAttribute('hidden') !== null || el.getAttribute('aria-hidden') === 'true') return true;
  const role = el.getAttribute('role');
  return role !== null && NOISE_ROLES.has(role);
}

/**
 * One iterative pass over the body: remove noise elements and comments, make
 * link and image URLs absolute (dropping script and data URLs), and find the
 * main content (`<main>`, `[role=main]`, or a single `<article>`).
 */
function clean(body: DomElement, base: string): DomElement {
  let main: DomElement | undefined;
  const articles: DomElement[] = [];
  const stack: [DomElement, boolean][] = [[body, false]];
  while (stack.length > 0) {
    const [el, inContent] = stack.pop()!;
    for (let child = el.firstChild; child !== null; ) {
      const next = child.nextSibling;
      if (child.nodeType === 8) {
        el.removeChild(child);
      } else if (child.nodeType === 1) {
        const element = child as DomElement;
        const name = element.nodeName;
        if (isNoise(element, inContent)) {
          el.removeChild(element);
        } else {
          if (name === 'A' || name === 'IMG') {
            const attr = name === 'A' ? 'href' : 'src';
            const value = element.getAttribute(attr);
            const url = value === null ? null : absolute(value, base);
            if (url !== null) element.setAttribute(attr, url);
            else if (name === 'IMG') el.removeChild(element);
            else if (value !== null) element.removeAttribute(attr);
          }
          if (main === undefined && (name === 'MAIN' || element.getAttribute('role') === 'main'))
            main = element;
          if (name === 'ARTICLE') articles.push(element);
          stack.push([element, inContent || name === 'MAIN' || name === 'ARTICLE']);
        }
      }
      child = next;
    }
  }
  return main ?? (articles.length === 1 ? articles[0]! : body);
}

/** A parsed, cleaned page: its title and the element holding its content. */
interface Page {
  title: string;
  root: DomElement;
}

function parsePage(html: string, baseUrl: string): Page {
  const doc = domino.createDocument(prepareHtml(html), true);
  const title = doc.title.trim();
  const base = doc.querySelector('base[href]')?.getAttribute('href');
  const baseHref = (base ? absolute(base, baseUrl) : null) ?? baseUrl;
  return { title, root: clean(doc.body ?? doc.documentElement, baseHref) };
}

// ------------------------------------------------------------- conversion

let turndown: TurndownService | undefined;

function markdownService(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  turndown.use(gfm);
  return turndown;
}

/** The converted page. */
export interface ConvertedPage {
  title: string;
  content: string;
}

/** Convert an HTML page to Markdown (links and images made absolute against `baseUrl`). */
export function htmlToMarkdown(html: string, baseUrl: string): ConvertedPage {
  const { title, root } = parsePage(html, baseUrl);
  const markdown = markdownService().turndown(root as unknown as TurndownService.Node);
  return { title, content: markdown.replace(/\n{3,}/g, '\n\n').trim() };
}

const BLOCK = new Set(
  (
    'ADDRESS ARTICLE ASIDE BLOCKQUOTE BR DD DETAILS DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 ' +
    'H5 H6 HEADER HR LI MAIN NAV OL P PRE SECTION SUMMARY TABLE TBODY TD TFOOT TH THEAD TR UL'
  ).split(' '),
);

/**
 * Convert an HTML page to plain text: the document text with a line break at
 * every block element, each line stripped, empty lines dropped (the reference's
 * extraction). Iterative, so depth is no concern.
 */
export function htmlToText(html: string, baseUrl: string): ConvertedPage {
  const { title, root } = parsePage(html, baseUrl);
  const parts: string[] = [];
  // Depth-first walk with an explicit stack of "next node to visit" and "leaving" markers.
  const stack: (DomNode | { leave: DomNode })[] = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('leave' in item) {
      if (BLOCK.has(item.leave.nodeName)) parts.push('\n');
      continue;
    }
    if (item.nodeType === 3) {
      parts.push(item.data ?? '');
      continue;
    }
    if (item.nodeType !== 1 && item !== root) continue;
    if (BLOCK.has(item.nodeName)) parts.push('\n');
    stack.push({ leave: item });
    const children: DomNode[] = [];
    for (let c = item.firstChild; c !== null; c = c.nextSibling) children.push(c);
    for (let k = children.length - 1; k >= 0; k--) stack.push(children[k]!);
  }
  const text = parts
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
  return { title, content: text };
}
