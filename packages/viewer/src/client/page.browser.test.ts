/**
 * The page in a real browser (Debian's Chromium, headless, through
 * playwright-core), over sessions written by a real scripted run and a
 * Python Amplifier session: what a person sees. Screenshots are kept in
 * test-artifacts/.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, BROWSER_REQUIRED, browserMissing, launchChromium } from '../__fixtures__/browser.js';
import { removeTempDirs, type ScriptedRun, scriptedRun, tempDir } from '../__fixtures__/scripted-run.js';
import { startViewer, type Viewer } from '../server/server.js';

const PYTHON_HOME = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '__fixtures__',
  'amplifier-home',
);
const PYTHON_ID = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const missing = browserMissing();

if (missing !== null && BROWSER_REQUIRED) {
  describe('the page in a browser', () => {
    it('runs (AMPLIFIER_REQUIRE_BROWSER=1)', () => {
      throw new Error(`The browser tests must run here (AMPLIFIER_REQUIRE_BROWSER=1) but ${missing}.`);
    });
  });
}

describe.skipIf(missing !== null)(
  `the page in a browser${missing === null ? '' : ` (skipped: ${missing})`}`,
  () => {
    let browser: Browser;
    let viewer: Viewer;
    let home: string;
    let run: ScriptedRun;
    let page: Page;

    beforeAll(async () => {
      home = tempDir();
      fs.cpSync(PYTHON_HOME, home, { recursive: true });
      run = await scriptedRun(home);
      viewer = await startViewer({ home, pollMs: 200 });
      browser = await launchChromium();
      fs.mkdirSync(ARTIFACTS, { recursive: true });
    });

    afterAll(async () => {
      await browser?.close();
      await viewer?.close();
      removeTempDirs();
    });

    async function open(hash = ''): Promise<Page> {
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${viewer.tokenUrl}${hash}`);
      expect(errors).toEqual([]);
      return page;
    }

    it('the list: status, model, duration, tokens and cost of each session, agent sessions under their parent', async () => {
      const p = await open();
      const row = p.locator(`tr.session-row[data-session-id="${run.id}"]`);
      await row.waitFor();
      await expect(row.locator('.badge').textContent()).resolves.toBe('completed');
      await expect(row.locator('.model').textContent()).resolves.toBe('mock-model');
      await expect(row.locator('.tokens').textContent()).resolves.toMatch(/9\.1k\s*\/\s*210/);
      expect(await row.locator('.duration').textContent()).toMatch(/\d+(\.\d+)? (ms|s)/);
      const python = p.locator(`tr.session-row[data-session-id="${PYTHON_ID}"]`);
      await expect(python.locator('.tag').textContent()).resolves.toBe('Amplifier (Python)');
      await expect(python.locator('.cost').textContent()).resolves.toBe('$0.0372');
      // The explorer agent session is the row right after its parent, marked as such.
      const next = python.locator('xpath=following-sibling::tr[1]');
      await expect(next.locator('.name').textContent()).resolves.toContain('↳');
      await expect(next.locator('.badge').textContent()).resolves.toBe('completed');
      await p.screenshot({ path: path.join(ARTIFACTS, 'list.png') });
      await p.close();
    });

    it("a session: a tool call's output, its duration and approval, the timeline with parallel calls side by side", async () => {
      const p = await open(`#/session/${run.id}`);
      const grep = p.locator('details.tool-call[data-tool-call-id="call_grep_b"]');
      await grep.waitFor();
      await expect(grep.locator('.tool-output').textContent()).resolves.toContain('"total_matches": 12000');
      await expect(grep.locator('.approval').textContent()).resolves.toBe('approval: granted (rule)');
      expect(await grep.locator('.duration').textContent()).toMatch(/\d+ ms|\d+\.\d+ s/);
      const bash = p.locator('details.tool-call[data-tool-call-id="call_bash"]');
      await expect(bash.locator('.badge').textContent()).resolves.toBe('denied');
      await expect(bash.locator('.approval').textContent()).resolves.toContain('approval: denied');
      // Timeline: 4 provider calls and 5 tool calls as bars; the 3 calls of the first response on 3 rows.
      expect(await p.locator('.timeline .bar.provider').count()).toBe(4);
      expect(await p.locator('.timeline .bar.tool').count()).toBe(5);
      const lanes = await p
        .locator('.timeline .bar.tool')
        .evaluateAll((bars) =>
          bars
            .filter((b) => ['grep', 'glob'].includes(b.getAttribute('data-name') ?? ''))
            .map((b) => b.getAttribute('data-lane')),
        );
      expect(new Set(lanes).size).toBe(3);
      expect(await p.locator('.tokens-chart rect.input').count()).toBe(4);
      await p.screenshot({ path: path.join(ARTIFACTS, 'session.png'), fullPage: true });
      // What the README shows (docs/viewer.png is a copy): the top of the page, then a tool call.
      await p.screenshot({ path: path.join(ARTIFACTS, 'session-top.png') });
      await bash.scrollIntoViewIfNeeded();
      await p.screenshot({ path: path.join(ARTIFACTS, 'session-tool-calls.png') });
      await p.close();
    });

    it('escaping: <script> and a javascript: link in a tool output and in the answer show as text and never run', async () => {
      const p = await open(`#/session/${run.id}`);
      const read = p.locator('details.tool-call[data-tool-call-id="call_read"] .tool-output');
      await read.waitFor();
      expect(await read.textContent()).toContain('<script>window.__pwned = true</script>');
      // Text output reads as text: its line breaks are line breaks, not "\n" escapes.
      expect(await read.textContent()).not.toContain('\\n');
      expect(await read.textContent()).toContain('[click me](javascript:window.__pwned=true)');
      expect(await read.textContent()).toContain('<img src=x onerror=');
      const answer = p.locator('.message.role-assistant').last();
      expect(await answer.textContent()).toContain(
        '<script>window.__pwned = true</script> and [click me](javascript:window.__pwned=true)',
      );
      expect(await p.locator('a[href^="javascript:"]').count()).toBe(0);
      expect(await p.locator('.conversation script, .conversation img').count()).toBe(0);
      expect(await p.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();
      await p.close();
    });

    it('live: events and messages written to a running session appear without a reload', async () => {
      const live = await scriptedRun(home, { status: 'running', prompt: 'A running session' });
      const p = await open(`#/session/${live.id}`);
      await p.locator('.live-dot').waitFor();
      const before = Number(await p.locator('.event-count').textContent());
      const now = Date.now();
      const ts = (ms: number): string => new Date(now + ms).toISOString();
      const record = (
        event: string,
        at: number,
        data: Record<string, unknown>,
        extra: Record<string, unknown> = {},
      ) =>
        `${JSON.stringify({ ts: ts(at), lvl: 'INFO', schema: { name: 'amplifier.log', ver: '1.0.0' }, event, session_id: live.id, ...extra, data })}\n`;
      fs.appendFileSync(
        path.join(live.dir, 'events.jsonl'),
        record('llm:request', 0, { provider: 'mock', model: 'mock-model' }) +
          record(
            'llm:response',
            40,
            {
              provider: 'mock',
              model: 'mock-model',
              usage: { input_tokens: 3000, output_tokens: 25, cost_usd: '0.0125' },
            },
            { status: 'ok', duration_ms: 40 },
          ) +
          record('tool:pre', 50, {
            tool_name: 'bash',
            tool_call_id: 'live_1',
            tool_input: { command: 'echo LIVE' },
          }) +
          record('tool:post', 90, {
            tool_name: 'bash',
            tool_call_id: 'live_1',
            result: { success: true, output: { stdout: 'LIVE-OUTPUT-MARKER\n', returncode: 0 } },
          }),
      );
      fs.appendFileSync(
        path.join(live.dir, 'transcript.jsonl'),
        `${JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'Running it live.' }], tool_calls: [{ id: 'live_1', tool: 'bash', arguments: { command: 'echo LIVE' } }] })}\n`,
      );
      const output = p.locator('details.tool-call[data-tool-call-id="live_1"] .tool-output');
      await output.waitFor({ timeout: 20_000 });
      await expect(output.textContent()).resolves.toContain('LIVE-OUTPUT-MARKER');
      // The scripted run's four calls cost $0.0290 (provider-mock reports its script's cost_usd); the live call adds $0.0125.
      await p.locator('.cost-chart figcaption', { hasText: '$0.0415' }).waitFor();
      expect(await p.locator('.timeline .bar.provider').count()).toBe(5);
      expect(Number(await p.locator('.event-count').textContent())).toBeGreaterThanOrEqual(before);
      await p.screenshot({ path: path.join(ARTIFACTS, 'live.png'), fullPage: true });
      await p.close();
    });

    it("a Python Amplifier session: its conversation, tool outputs matched by order, cost, the agent session's link", async () => {
      const p = await open(`#/session/${PYTHON_ID}`);
      const bash = p.locator('details.tool-call[data-tool-call-id="toolu_01B"]');
      await bash.waitFor();
      await expect(bash.locator('.tool-output').textContent()).resolves.toContain(
        'tsc -p . && node scripts/copy.js',
      );
      await expect(bash.locator('.duration').textContent()).resolves.toBe('469 ms');
      await expect(p.locator('.cost-chart figcaption').textContent()).resolves.toContain('$0.0372');
      await expect(p.locator('.children a').textContent()).resolves.toBe('explorer');
      await p.screenshot({ path: path.join(ARTIFACTS, 'python-session.png'), fullPage: true });
      await p.close();
    });

    it('without the token the page shows nothing; a web page on another origin cannot read the API even with the cookie in the browser', async () => {
      const context = await browser.newContext();
      try {
        const bare = await context.newPage();
        const response = await bare.goto(viewer.url);
        expect(response?.status()).toBe(401);
        expect(await bare.locator('tr.session-row').count()).toBe(0);
        // The user opens the viewer: the browser now holds its cookie.
        await bare.goto(viewer.tokenUrl);
        await bare.locator('tr.session-row').first().waitFor();
        expect(bare.url()).not.toContain('token=');
        // A hostile page elsewhere (another port of the same host counts) tries to read the sessions.
        const evil = http.createServer((_request, answer) => {
          answer.writeHead(200, { 'content-type': 'text/html' });
          answer.end('<!doctype html><title>evil</title>');
        });
        await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
        try {
          const evilPage = await context.newPage();
          await evilPage.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
          const attempts = await evilPage.evaluate(async (base) => {
            const out: string[] = [];
            for (const init of [
              { credentials: 'include' },
              { credentials: 'include', mode: 'no-cors' },
              {},
            ] as RequestInit[]) {
              try {
                const r = await fetch(`${base}api/sessions`, init);
                out.push(`read ${r.status} ${(await r.text()).slice(0, 40)}`);
              } catch (error) {
                out.push(`blocked ${(error as Error).name}`);
              }
            }
            return out;
          }, viewer.url);
          // Either the browser blocks the read, or it is opaque (no-cors: status 0, no body): never the sessions.
          for (const attempt of attempts) expect(attempt).toMatch(/^blocked |^read 0 $/);
        } finally {
          evil.closeAllConnections();
          await new Promise<void>((resolve) => evil.close(() => resolve()));
        }
      } finally {
        await context.close();
      }
    });

    it('the viewer cookie never reaches a server on another port of 127.0.0.1 (cookies ignore ports; its Path is the secret base)', async () => {
      const context = await browser.newContext();
      const seen: { path: string; cookie: string }[] = [];
      const other = http.createServer((request, answer) => {
        seen.push({ path: request.url ?? '', cookie: request.headers.cookie ?? '' });
        answer.writeHead(200, { 'content-type': 'text/html' });
        answer.end('<!doctype html><title>another local user</title>');
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      try {
        // The user opens the viewer: the browser now holds its cookie.
        const user = await context.newPage();
        await user.goto(viewer.tokenUrl);
        await user.locator('tr.session-row').first().waitFor();
        const held = (await context.cookies()).filter((c) => c.name === `amplifier-view-${viewer.port}`);
        expect(held.map((c) => c.path)).toEqual([viewer.base]);
        // A control cookie at Path=/ of the same host shows the recorder does see cookies from this browser.
        await context.addCookies([{ name: 'control', value: '1', domain: '127.0.0.1', path: '/' }]);
        const hex = viewer.base.split('/')[2]!;
        const paths = [
          '/',
          '/index.html',
          '/api/sessions',
          '/assets/client/app.js',
          '/v/',
          `/v/${hex.slice(0, 31)}/`,
          `/v/${hex.toUpperCase()}/`,
          `/x${viewer.base}`,
        ];
        const page = await context.newPage();
        for (const target of paths) await page.goto(`${otherOrigin}${target}`);
        // Its own same-origin fetches, with credentials, and a form-less top-level hop back.
        await page.evaluate(async (targets) => {
          for (const target of targets) {
            await fetch(target, { credentials: 'include' });
            await fetch(target);
          }
        }, paths);
        await page.goto(`${otherOrigin}/`);
        expect(seen.length).toBeGreaterThanOrEqual(paths.length * 3 + 1);
        for (const request of seen) {
          expect(request.cookie, request.path).not.toContain(`amplifier-view-${viewer.port}`);
          expect(request.cookie, request.path).not.toContain(viewer.token);
          expect(request.cookie, request.path).toContain('control=1');
        }
        // The path is the whole secret: a server that knew it would get the cookie (why it is derived from the token).
        seen.length = 0;
        await page.evaluate((target) => fetch(target).then(() => undefined), viewer.base);
        expect(seen.map((r) => r.cookie).join(' ')).toContain(`amplifier-view-${viewer.port}=`);
      } finally {
        await context.close();
        other.closeAllConnections();
        await new Promise<void>((resolve) => other.close(() => resolve()));
      }
    });
  },
);
