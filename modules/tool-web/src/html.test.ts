import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, htmlToText } from './html.js';
import { MAX_DEPTH, prepareHtml } from './prepare.js';

const PAGE = `<!doctype html><html><head><title> The Title </title><style>.x{color:red}</style>
<script>document.write('SCRIPTED')</script></head><body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<header><div>Site banner</div></header>
<h1>Main heading</h1>
<p>Some   <b>bold</b> text with a <a href="/docs/page?x=1">relative link</a> and <a href="javascript:alert(1)">a script link</a>.</p>
<h2>Lists</h2>
<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>
<ol><li>first</li><li>second</li></ol>
<pre><code class="language-ts">const x: number = 1;
if (x) {
  run();
}</code></pre>
<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></tbody></table>
<div hidden>HIDDEN TEXT</div><div aria-hidden="true">ARIA HIDDEN</div>
<aside>Sidebar ad</aside>
<footer>Copyright footer</footer>
<noscript>NOSCRIPT TEXT</noscript>
</body></html>`;

describe('htmlToMarkdown', () => {
  const { title, content } = htmlToMarkdown(PAGE, 'https://example.com/base/index.html');

  it('keeps headings, links (absolute), lists, code and tables', () => {
    expect(title).toBe('The Title');
    expect(content).toContain('# Main heading');
    expect(content).toContain('## Lists');
    expect(content).toContain('[relative link](https://example.com/docs/page?x=1)');
    expect(content).toMatch(/^-\s+one$/m);
    expect(content).toMatch(/^ {2,4}-\s+nested$/m);
    expect(content).toMatch(/^1\.\s+first$/m);
    expect(content).toContain('```ts\nconst x: number = 1;\nif (x) {\n  run();\n}\n```');
    expect(content).toMatch(/\| Name \| Value \|/);
    expect(content).toMatch(/\| a +\| 1 +\|/);
    expect(content).toContain('**bold**');
  });

  it('removes scripts, styles, navigation, header, footer, asides and hidden elements', () => {
    for (const noise of [
      'SCRIPTED',
      'color:red',
      'Home',
      'Site banner',
      'Sidebar ad',
      'Copyright footer',
      'HIDDEN TEXT',
      'ARIA HIDDEN',
      'NOSCRIPT',
    ]) {
      expect(content).not.toContain(noise);
    }
    expect(content).not.toContain('javascript:');
    expect(content).toContain('a script link');
  });

  it('prefers <main> when the page has one', () => {
    const md = htmlToMarkdown(
      '<body><div>outside junk</div><main><h1>Inside</h1><p>kept</p></main></body>',
      'https://e.com/',
    );
    expect(md.content).toBe('# Inside\n\nkept');
  });

  it('honours <base href> for links', () => {
    const md = htmlToMarkdown(
      '<head><base href="https://cdn.example.org/x/"></head><body><a href="y">y</a></body>',
      'https://e.com/',
    );
    expect(md.content).toBe('[y](https://cdn.example.org/x/y)');
  });
});

describe('htmlToText', () => {
  it('gives stripped, whitespace-collapsed lines without noise (the reference extraction)', () => {
    const { content } = htmlToText(PAGE, 'https://example.com/');
    const lines = content.split('\n');
    expect(lines[0]).toBe('Main heading');
    expect(lines[1]).toBe('Some bold text with a relative link and a script link.');
    expect(content).not.toContain('SCRIPTED');
    expect(content).not.toContain('color:red');
    expect(lines.every((line) => line === line.trim() && line !== '' && !line.includes('  '))).toBe(true);
  });
});

describe('pathological HTML (security WEB-16)', () => {
  it('WEB-16: 100k nested <div>s convert without a stack overflow', () => {
    const deep = `<html><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}<p>after</p></body></html>`;
    const md = htmlToMarkdown(deep, 'https://e.com/');
    expect(md.content).toContain('deep text');
    expect(md.content).toContain('after');
    const text = htmlToText(deep, 'https://e.com/');
    expect(text.content).toBe('deep text\nafter');
  });

  it('prepareHtml drops start tags past the limit and keeps all text', () => {
    const html = `${'<div>'.repeat(MAX_DEPTH + 50)}x${'</div>'.repeat(MAX_DEPTH + 50)}`;
    const limited = prepareHtml(html);
    expect(limited.match(/<div>/g)?.length).toBe(MAX_DEPTH);
    expect(limited).toContain('x');
    // well-formed documents with implied ends are not touched
    const lists = '<ul><li>a<li>b</ul><p>one<p>two<table><tr><td>1<td>2<tr><td>3</table>'.repeat(500);
    expect(prepareHtml(lists) === lists).toBe(true);
    // a run of '<' without '>' stays linear and unchanged
    const lt = '<a'.repeat(200_000);
    expect(prepareHtml(lt) === lt).toBe(true);
  });

  it('prepareHtml drops comments, scripts and styles (with their text) before parsing', () => {
    expect(
      prepareHtml('<p>a<!-- c --></p><SCRIPT type="x">if (a < b) {}</script ><style>p{}</style><p>b</p>'),
    ).toBe('<p>a</p><p>b</p>');
    expect(prepareHtml('<p>x</p><script>never closed')).toBe('<p>x</p>');
  });

  it('WEB-16: <span><div></span> nesting (end tags a parser ignores) is still bounded', () => {
    const html = `<body>${'<span><div></span>'.repeat(50_000)}end</body>`;
    const limited = prepareHtml(html);
    expect(limited.match(/<div>/g)?.length ?? 0).toBeLessThanOrEqual(MAX_DEPTH);
    expect(htmlToMarkdown(html, 'https://e.com/').content).toContain('end');
  });

  it('WEB-16: scripts never run and meta refresh is only text', () => {
    const html =
      '<head><meta http-equiv="refresh" content="0;url=http://127.0.0.2/"></head><body><script>globalThis.__ran = true</script><p>ok</p></body>';
    expect(htmlToMarkdown(html, 'https://e.com/').content).toBe('ok');
    expect((globalThis as { __ran?: boolean }).__ran).toBeUndefined();
  });
});
