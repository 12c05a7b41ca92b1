/**
 * Launches Debian's Chromium through playwright-core for browser tests (the e2e tests' whole set-up, a built
 * client and a server serving it, is ./serverAndBrowser.ts).
 *
 * Playwright's own browser downloads are not available on our machines, so tests always use
 * /usr/bin/chromium (installed by .ci/run). The background-networking flags matter: without them
 * Chromium tries to reach Google's hosts, which this closed network refuses. `chromium.launch`
 * gives every browser a fresh temporary profile (--user-data-dir) of its own and removes it on close.
 */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<LaunchedBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  return { browser, close: () => browser.close() };
}
