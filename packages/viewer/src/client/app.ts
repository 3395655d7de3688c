/** The page: the list (`#/`) or one session (`#/session/<id>`), chosen by the URL's hash. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { ListPage } from './list-page.js';
import { SessionPage } from './session-page.js';

function route(): { page: 'list' } | { page: 'session'; id: string } {
  const match = /^#\/session\/(.+)$/.exec(location.hash);
  if (match === null) return { page: 'list' };
  try {
    return { page: 'session', id: decodeURIComponent(match[1]!) };
  } catch {
    return { page: 'list' };
  }
}

function App() {
  const [current, setCurrent] = useState(route());
  useEffect(() => {
    const onHash = (): void => setCurrent(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return html`<div class="app">
    <header class="top"><a href="#/">Amplifier sessions</a></header>
    ${current.page === 'list' ? html`<${ListPage} />` : html`<${SessionPage} key=${current.id} id=${current.id} />`}
  </div>`;
}

const root = document.getElementById('app')!;
// Preact 11 renders next to what the element holds: the "Loading…" placeholder goes first.
root.textContent = '';
render(html`<${App} />`, root);
