/**
 * The session viewer's time to render a 10,000-event session: a session
 * folder written like the CLI's (1,250 steps of a model call and two tool
 * calls each: 10,000 event records, 3,751 messages, 2,500 tool calls with
 * ~400-character outputs), served by `startViewer` and opened in Debian's
 * Chromium (headless, playwright-core), from `page.goto` to the last tool
 * call's output on the screen, a fresh page per sample. Also the server's
 * share (GET /api/sessions/<id>: reading, folding, JSON) and the list page
 * over the same folder. Skipped with the reason when Chromium is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  fmt,
  type Group,
  type GroupOptions,
  missing,
  notAvailable,
  type Row,
  sampleRow,
  summarize,
} from './stats.js';

const GROUP = 'view';
const CHROMIUM = process.env.AMPLIFIER_CHROMIUM ?? '/usr/bin/chromium';
const ID = 'bench-view-10k';

/** Writes the session; returns the id of its last tool call. */
export function writeSession(home: string, steps: number): { last: string; events: number } {
  const dir = path.join(home, 'projects', '-bench', 'sessions', ID);
  fs.mkdirSync(dir, { recursive: true });
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  const ts = (ms: number): string => new Date(t0 + ms).toISOString();
  const schema = { name: 'amplifier.log', ver: '1.0.0' };
  const events: string[] = [];
  const messages: string[] = [JSON.stringify({ role: 'user', content: 'Go through the repository.' })];
  const rec = (
    event: string,
    at: number,
    data: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): void => {
    events.push(JSON.stringify({ ts: ts(at), lvl: 'INFO', schema, event, session_id: ID, ...extra, data }));
  };
  const output = 'x'.repeat(380);
  let last = '';
  for (let s = 0; s < steps; s++) {
    const at = s * 1000;
    rec('provider:request', at, { provider: 'anthropic', iteration: s });
    rec('llm:request', at + 1, {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      message_count: 1 + s * 3,
    });
    rec(
      'llm:response',
      at + 400,
      {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: 2000 + s * 50, output_tokens: 80, cost_usd: '0.0071' },
      },
      { status: 'ok', duration_ms: 399 },
    );
    const calls = [0, 1].map((k) => ({
      id: `call_${s}_${k}`,
      tool: 'grep',
      arguments: { pattern: `TODO ${s}`, path: `src/${k}` },
    }));
    messages.push(
      JSON.stringify({
        role: 'assistant',
        content: [{ type: 'text', text: `Step ${s}.` }],
        tool_calls: calls,
      }),
    );
    for (const [k, call] of calls.entries()) {
      rec('tool:pre', at + 410 + k, {
        tool_name: 'grep',
        tool_call_id: call.id,
        tool_input: call.arguments,
        parallel_group_id: `g${s}`,
      });
    }
    for (const [k, call] of calls.entries()) {
      rec('tool:post', at + 600 + k * 50, {
        tool_name: 'grep',
        tool_call_id: call.id,
        tool_input: call.arguments,
        result: { success: true, output: `${call.id}: ${output}` },
        parallel_group_id: `g${s}`,
      });
      messages.push(
        JSON.stringify({ role: 'tool', tool_call_id: call.id, content: `${call.id}: ${output}` }),
      );
      last = call.id;
    }
    rec('provider:response', at + 401, { provider: 'anthropic', tool_calls: true });
  }
  fs.writeFileSync(path.join(dir, 'events.jsonl'), `${events.join('\n')}\n`);
  fs.writeFileSync(path.join(dir, 'transcript.jsonl'), `${messages.join('\n')}\n`);
  fs.writeFileSync(
    path.join(dir, 'metadata.json'),
    JSON.stringify({
      session_id: ID,
      created: ts(0),
      updated: ts(steps * 1000),
      cwd: '/bench',
      status: 'completed',
      name: '10,000 events',
      cli_version: '0.1.0',
    }),
  );
  return { last, events: events.length };
}

async function run(options: GroupOptions): Promise<Row[]> {
  const what = 'viewer: a 10,000-event session, page.goto to the last tool call shown';
  if (!fs.existsSync(CHROMIUM))
    return [
      notAvailable(
        GROUP,
        what,
        `no Chromium at ${CHROMIUM} (apt-get install chromium, or set AMPLIFIER_CHROMIUM)`,
      ),
    ];
  for (const specifier of ['@amplifier/viewer', 'playwright-core']) {
    const reason = await missing(specifier);
    if (reason !== undefined) return [notAvailable(GROUP, what, reason)];
  }
  const { startViewer } = await import('@amplifier/viewer');
  const { chromium } = await import('playwright-core');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-bench-view-'));
  const steps = options.quick ? 250 : 1250;
  const { last, events } = writeSession(home, steps);
  const viewer = await startViewer({ home });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const runs = Math.max(5, options.runs);
    options.log(`view: ${events} events, ${runs} samples`);
    const page: number[] = [];
    const api: number[] = [];
    const list: number[] = [];
    for (let round = -1; round < runs; round++) {
      const a0 = performance.now();
      const response = await fetch(`${viewer.url}api/sessions/${ID}`, {
        headers: { authorization: `Bearer ${viewer.token}` },
      });
      await response.arrayBuffer();
      const a = performance.now() - a0;
      // The API lives under the viewer's secret base path (viewer.url): a 404 here would time nothing.
      if (!response.ok)
        throw new Error(`view bench: GET ${viewer.base}api/sessions/${ID} answered ${response.status}.`);
      const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const p0 = performance.now();
      // The token URL sets the viewer's cookie (one 302) and keeps the fragment.
      await tab.goto(`${viewer.tokenUrl}#/session/${ID}`);
      await tab
        .locator(`details.tool-call[data-tool-call-id="${last}"] .tool-name`)
        .waitFor({ timeout: 120_000 });
      const p = performance.now() - p0;
      const l0 = performance.now();
      await tab.goto(`${viewer.url}#/`);
      await tab.reload();
      await tab.locator(`tr.session-row[data-session-id="${ID}"]`).waitFor({ timeout: 120_000 });
      const l = performance.now() - l0;
      await tab.close();
      if (round < 0) continue; // warm-up: Chromium's first page, the server's first read
      page.push(p);
      api.push(a);
      list.push(l);
    }
    const pageRow = sampleRow(GROUP, `${what} (${events} events, ${steps * 2} tool calls)`, page, 'ms', {
      note: 'Debian Chromium headless; includes the server reading and folding the log, the JSON, the page folding it again and rendering the timeline, charts and every tool call',
    });
    return [
      pageRow,
      sampleRow(GROUP, `viewer server: GET /api/sessions/<id> of the same session`, api, 'ms', {
        note: `the server's share of the page time above: ${fmt((100 * summarize(api).median) / summarize(page).median)} %`,
      }),
      sampleRow(GROUP, 'viewer: the list page over the same folder, reload to the row shown', list, 'ms', {
        note: "the summary is cached by the files' size and time after the first read",
      }),
    ];
  } finally {
    await browser.close();
    await viewer.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

export const group: Group = { name: GROUP, title: 'Session viewer', run };
