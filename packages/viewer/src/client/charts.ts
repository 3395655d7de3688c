/** Token and cost charts, inline SVG: tokens per provider call (input and output stacked), cost over the calls. */
import type { ProviderCall } from '../model/session-fold.js';
import { formatCost, formatTokens } from './format.js';
import { html } from './html.js';

const H = 120;

export function TokenChart({ calls }: { calls: ProviderCall[] }) {
  const used = calls.filter((c) => c.usage !== null);
  if (used.length === 0) return html`<p class="empty">No token usage recorded.</p>`;
  const max = used.reduce((m, c) => Math.max(m, c.usage!.input + c.usage!.output), 1);
  const w = Math.max(used.length * 12, 120);
  const bars = used.map((c, i) => {
    const u = c.usage!;
    const hi = (u.input / max) * H;
    const ho = (u.output / max) * H;
    return html`<g key=${i}>
      <title>${`call ${i + 1}: ${u.input} input, ${u.output} output tokens`}</title>
      <rect class="input" x=${i * 12 + 1} y=${H - hi} width="10" height=${hi} />
      <rect class="output" x=${i * 12 + 1} y=${H - hi - ho} width="10" height=${ho} />
    </g>`;
  });
  return html`<figure class="chart tokens-chart">
    <svg viewBox=${`0 0 ${w} ${H}`} preserveAspectRatio="none" role="img" aria-label="tokens per provider call">${bars}</svg>
    <figcaption>Tokens per provider call (max ${formatTokens(max)}): <span class="key input"></span> input <span class="key output"></span> output</figcaption>
  </figure>`;
}

export function CostChart({ calls }: { calls: ProviderCall[] }) {
  let total = 0;
  const points: [number, number][] = [[0, 0]];
  for (const c of calls) {
    if (c.usage?.cost == null) continue;
    total += c.usage.cost;
    points.push([points.length, total]);
  }
  if (points.length === 1)
    return html`<p class="empty">No cost reported (the provider gave no prices for this model).</p>`;
  const w = Math.max((points.length - 1) * 12, 120);
  const sx = w / (points.length - 1);
  const d = points
    .map(
      ([x, y], i) => `${i === 0 ? 'M' : 'L'}${(x * sx).toFixed(1)},${(H - (y / total) * (H - 4)).toFixed(1)}`,
    )
    .join(' ');
  return html`<figure class="chart cost-chart">
    <svg viewBox=${`0 0 ${w} ${H}`} preserveAspectRatio="none" role="img" aria-label="cost over the calls"><path d=${d} /></svg>
    <figcaption>Cost so far, call by call: ${formatCost(total)}</figcaption>
  </figure>`;
}
