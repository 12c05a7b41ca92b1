/**
 * Two tabs of one session in Debian Chromium (issue 16): the participant's own message sent from tab 1
 * appears in tab 2 (not only the reply), and an autosave from a tab whose draft is out of date is refused
 * with a visible notice that offers to load the newer draft, instead of silently overwriting it.
 * Real server, real SQLite file, the offline demo assistant; the built client (dist/client) is needed.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { startServerAndBrowser, startTempDataDirServer, type ServerAndBrowser } from '../support/serverAndBrowser';

const ROOT = path.resolve(import.meta.dirname, '../..');

let t: ServerAndBrowser;

beforeAll(async () => {
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () =>
      startTempDataDirServer('tandem-e2e-two-tabs-', {
        port: 0,
        env: {},
        offlineReplyDelayMs: 0,
        logger: createLogger('error'),
        studiesDir: path.join(ROOT, 'studies'),
        surveysDir: path.join(ROOT, 'surveys'),
      }),
  });
});

afterAll(() => t?.close());

async function toWorkspace(page: Page, url: string) {
  await page.goto(url);
  await page.getByRole('button', { name: 'I agree and want to take part' }).click();
  await page.getByRole('button', { name: 'Start the task' }).click();
  await page.getByRole('heading', { name: 'Chat with' }).waitFor();
}

describe('two tabs of one session in Chromium', () => {
  it("shows tab 1's message in tab 2, and a stale draft save in tab 2 shows a notice that loads the newer draft", async () => {
    // One browser profile (one localStorage, so one participant token), two tabs.
    const context = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const url = `${t.url}/study/visualization?PROLIFIC_PID=pid-two-tabs&STUDY_ID=st-two&SESSION_ID=se-two`;
    const tab1 = await context.newPage();
    tab1.on('pageerror', (error) => errors.push(error.message));
    await toWorkspace(tab1, url);
    const tab2 = await context.newPage();
    tab2.on('pageerror', (error) => errors.push(error.message));
    await tab2.goto(url);
    await tab2.getByRole('heading', { name: 'Chat with' }).waitFor();

    // The participant's own message from tab 1 appears in tab 2, once, followed by the reply.
    const box = tab1.getByLabel('Message the assistant');
    await box.fill('Sent from the first tab');
    await box.press('Enter');
    await tab2.locator('.messages li.user', { hasText: 'Sent from the first tab' }).waitFor({ timeout: 15_000 });
    await tab2.waitForFunction(() => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= 1, null, { timeout: 30_000 });
    expect(await tab2.locator('.messages li.user', { hasText: 'Sent from the first tab' }).count()).toBe(1);
    expect(await tab1.locator('.messages li.user', { hasText: 'Sent from the first tab' }).count()).toBe(1);

    // Tab 1 saves a draft; tab 2 still holds the empty form it loaded and edits it: refused, with a notice.
    await tab1.getByLabel('Your hypothesis').fill('Written in the first tab.');
    await tab1.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    await tab2.getByLabel('Your hypothesis').fill('Written in the second tab.');
    const notice = tab2.getByTestId('draft-conflict');
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toContain('changed in another tab or window');
    await notice.scrollIntoViewIfNeeded();
    await tab2.screenshot({ path: '/tmp/tandem-two-tabs-conflict.png' });
    expect(await tab2.locator('[data-save]').getAttribute('data-save')).toBe('conflict');
    const sessionId = (await t.server.store.withdrawals.findSessionIds('visualization', 'pid-two-tabs'))[0]!;
    expect((await t.server.store.artifacts.getDraft(sessionId))?.fields).toEqual({ hypothesis: 'Written in the first tab.' });

    // Loading the newer draft shows tab 1's text in tab 2; later edits in tab 2 save on top of it.
    await tab2.getByRole('button', { name: 'Load the newer version' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(await tab2.getByLabel('Your hypothesis').inputValue()).toBe('Written in the first tab.');
    await tab2.getByLabel('Your hypothesis').fill('Written in the first tab, then the second.');
    await tab2.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    expect(await t.server.store.artifacts.getDraft(sessionId)).toMatchObject({ fields: { hypothesis: 'Written in the first tab, then the second.' }, version: 2 });
    await tab2.screenshot({ path: '/tmp/tandem-two-tabs-loaded.png' });

    // Now tab 1 is behind: its edit is refused too, and "Keep this version" saves it over tab 2's draft.
    await tab1.getByLabel('Your hypothesis').fill('Tab 1 insists.');
    await tab1.getByTestId('draft-conflict').waitFor({ timeout: 10_000 });
    await tab1.getByRole('button', { name: 'Keep this version' }).click();
    await tab1.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    expect(await tab1.getByTestId('draft-conflict').count()).toBe(0);
    expect(await t.server.store.artifacts.getDraft(sessionId)).toMatchObject({ fields: { hypothesis: 'Tab 1 insists.' }, version: 3 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
