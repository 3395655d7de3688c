/**
 * Debian's Chromium for the browser tests, driven by playwright-core. When
 * it is missing the tests skip with the reason; with
 * AMPLIFIER_REQUIRE_BROWSER=1 (set by .ci/run) they fail instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.AMPLIFIER_CHROMIUM ?? '/usr/bin/chromium';
export const BROWSER_REQUIRED = process.env.AMPLIFIER_REQUIRE_BROWSER === '1';

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return fs.existsSync(CHROMIUM)
    ? null
    : `no Chromium at ${CHROMIUM} (install Debian's chromium, or set AMPLIFIER_CHROMIUM)`;
}

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: Chromium's own sandbox refuses to start as root, which is how CI runs.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

/** Where screenshots are kept: packages/viewer/test-artifacts/ (gitignored). */
export const ARTIFACTS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test-artifacts',
);
