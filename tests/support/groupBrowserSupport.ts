/**
 * What the group e2e files share: a server for the group studies (a temp DATA_DIR, the studies of
 * groupStudyDirs(), a fast lobby sweep) with the run's browser, a study file derived from a shipped one by exact
 * edits, and a browser context per person that records page errors.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLogger } from '../../lib/logger';
import type { groupStudyDirs } from './groupTestStudies';
import { FAST_OFFLINE_REPLIES, startServerAndBrowser, startTempDataDirServer, type ServerAndBrowser } from './serverAndBrowser';

type StudyDirs = ReturnType<typeof groupStudyDirs>;

/** Writes `<id>.yaml` into the test's studies folder: `from` with each edit applied; an edit that finds nothing stops the test. */
export function writeStudyVariant(dirs: StudyDirs, from: string, id: string, edits: readonly (readonly [string, string])[]): void {
  let text = fs.readFileSync(path.join(dirs.studiesDir, from), 'utf8');
  for (const [find, replace] of edits) {
    if (!text.includes(find)) throw new Error(`test study ${id}: ${from} has no "${find}"`);
    text = text.replace(find, replace);
  }
  fs.writeFileSync(path.join(dirs.studiesDir, `${id}.yaml`), text);
}

/** A server on the group studies with the run's browser; `temp` builds the client into the run's folder, `dist` serves dist/client. */
export function startGroupServer(prefix: string, dirs: StudyDirs, client: 'temp' | 'dist'): Promise<ServerAndBrowser> {
  return startServerAndBrowser({
    client,
    startServer: (built) =>
      startTempDataDirServer(prefix, {
        port: 0,
        env: {},
        ...FAST_OFFLINE_REPLIES,
        logger: createLogger('error'),
        studiesDir: dirs.studiesDir,
        surveysDir: dirs.surveysDir,
        groups: { sweepMs: 250 },
        ...built,
      }),
  });
}

export interface OpenPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page, for a test to assert there were none. */
  errors: string[];
}

/** A fresh browser context `width` px wide (its own cookies and storage) on `url`. */
export async function openPage(browser: Browser, width: number, url: string): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  return { context, page, errors };
}

/** A person joining `study` with a participant label, past the consent page. */
export async function consentedMember(browser: Browser, baseUrl: string, study: string, label: string, width: number): Promise<OpenPage> {
  const member = await openPage(browser, width, `${baseUrl}/study/${study}?participant_label=${label}`);
  await member.page.getByRole('button', { name: 'I agree and want to take part' }).click();
  return member;
}
