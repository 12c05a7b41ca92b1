/**
 * Debian's Chromium through playwright-core for browser tests (the e2e tests' whole set-up, a built
 * client and a server serving it, is ./serverAndBrowser.ts).
 *
 * In the `browser` project (vitest.config.ts) one Chromium serves the whole run (./browserGlobalSetup.ts):
 * launchBrowser() connects to it, and close() closes this file's contexts and disconnects. Browser
 * contexts share no cookies, storage or cache, so files stay as separate as with a Chromium each.
 * Elsewhere (another project, TANDEM_TEST_SHARED_BROWSER=off) it launches a Chromium of its own.
 *
 * Playwright's own browser downloads are not available on our machines, so tests always use
 * /usr/bin/chromium (installed by .ci/run). The background-networking flags matter: without them
 * Chromium tries to reach Google's hosts, which this closed network refuses. `chromium.launch`
 * gives every browser a fresh temporary profile (--user-data-dir) of its own and removes it on close.
 */
import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

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
  // A sandboxed iframe (the dashboard plots, the analysis report) gets a renderer process of its own by default. In
  // clean-clone CI runs Playwright now and then never saw that frame: after 45 s page.frames() held only the page
  // (tests/e2e/adminSessionList.test.ts, 2026-12-06). In the page's process it is an ordinary child frame; its
  // sandbox (no scripts, an opaque origin) is the same either way.
  '--disable-features=IsolateSandboxedIframes',
];

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** The run's shared Chromium, or '' outside a vitest worker or when this project has none. */
function sharedBrowserEndpoint(): string {
  try {
    return inject('browserWsEndpoint') ?? '';
  } catch {
    return ''; // not inside a vitest worker (e.g. a bench script)
  }
}

/** The run's shared Chromium when there is one, else a Chromium of its own; close() undoes either. */
export async function launchBrowser(): Promise<LaunchedBrowser> {
  const endpoint = sharedBrowserEndpoint();
  // For a connected browser, close() closes the contexts this connection made and disconnects.
  const browser = endpoint ? await chromium.connect(endpoint) : await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  return { browser, close: () => browser.close() };
}
