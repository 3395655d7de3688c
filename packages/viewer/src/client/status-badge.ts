/** A session's or a call's status as a coloured word. */
import { html } from './html.js';

export function StatusBadge({ status }: { status: string }) {
  return html`<span class=${`badge status-${status.replace(/[^a-z_-]/gi, '')}`}>${status}</span>`;
}
