/**
 * Two tabs of one session in Debian Chromium (issues 16 and 26), at 1280 and 390 px: the participant's own
 * message sent from tab 1 appears in tab 2 (not only the reply); a draft typed in one tab appears in the other
 * as it is saved (live draft sync), with the caret of both tabs where it was; and when both tabs edit at once,
 * the save of the one that is behind is refused with a visible notice (load the newer draft, or keep this one)
 * instead of silently overwriting the other. Real server, real SQLite file, the offline demo assistant; the
 * built client (dist/client) is needed. Screenshots: test-results/two-tabs-*.png.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { FAST_OFFLINE_REPLIES, startServerAndBrowser, startTempDataDirServer, type ServerAndBrowser } from '../support/serverAndBrowser';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SHOTS = path.join(ROOT, 'test-results');

let t: ServerAndBrowser;

beforeAll(async () => {
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () =>
      startTempDataDirServer('tandem-e2e-two-tabs-', {
        port: 0,
        env: {},
        ...FAST_OFFLINE_REPLIES,
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

/** The caret of a tab's hypothesis box. */
const caretOf = (page: Page) =>
  page.getByLabel('Your hypothesis').evaluate((el) => [(el as HTMLTextAreaElement).selectionStart, (el as HTMLTextAreaElement).selectionEnd]);

/** Puts the caret of a tab's hypothesis box at `at` (focused). */
async function placeCaret(page: Page, at: number) {
  await page.getByLabel('Your hypothesis').evaluate((el, pos) => {
    const box = el as HTMLTextAreaElement;
    box.focus();
    box.setSelectionRange(pos, pos);
  }, at);
}

const hypothesisOf = (page: Page) => page.getByLabel('Your hypothesis').inputValue();
const saveStateOf = (page: Page) => page.locator('[data-save]').getAttribute('data-save');

describe.each([
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
])('two tabs of one session in Chromium at $width px', (viewport) => {
  it("shows tab 1's message and drafts in tab 2 live, and a save from the tab that is behind shows the conflict notice", async () => {
    // One browser profile (one localStorage, so one participant token), two tabs.
    const context = await t.browser.newContext({ viewport });
    const errors: string[] = [];
    const pid = `pid-two-tabs-${viewport.width}`;
    const url = `${t.url}/study/visualization?PROLIFIC_PID=${pid}&STUDY_ID=st-two&SESSION_ID=se-two-${viewport.width}`;
    const tab1 = await context.newPage();
    tab1.on('pageerror', (error) => errors.push(error.message));
    await toWorkspace(tab1, url);
    const tab2 = await context.newPage();
    tab2.on('pageerror', (error) => errors.push(error.message));
    await tab2.goto(url);
    await tab2.getByRole('heading', { name: 'Chat with' }).waitFor();
    const sessionId = (await t.server.store.withdrawals.findSessionIds('visualization', pid))[0]!;

    // The participant's own message from tab 1 appears in tab 2, once, followed by the reply.
    const box = tab1.getByLabel('Message the assistant');
    await box.fill('Sent from the first tab');
    await box.press('Enter');
    await tab2.locator('.messages li.user', { hasText: 'Sent from the first tab' }).waitFor({ timeout: 15_000 });
    await tab2.waitForFunction(() => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= 1, null, { timeout: 30_000 });
    expect(await tab2.locator('.messages li.user', { hasText: 'Sent from the first tab' }).count()).toBe(1);
    expect(await tab1.locator('.messages li.user', { hasText: 'Sent from the first tab' }).count()).toBe(1);

    // Live: what tab 1 types appears in tab 2 once saved, without a reload and without a conflict.
    await tab1.getByLabel('Your hypothesis').fill('Written in the first tab.');
    await tab1.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => hypothesisOf(tab2), { timeout: 10_000 }).toBe('Written in the first tab.');
    expect(await saveStateOf(tab2)).toBe('saved');

    // Carets stay put: tab 2's caret sits after "Written" while tab 1 types in the middle of the text.
    await placeCaret(tab2, 7);
    await placeCaret(tab1, 'Written in the'.length);
    await tab1.keyboard.type(' very');
    await tab1.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => hypothesisOf(tab2), { timeout: 10_000 }).toBe('Written in the very first tab.');
    expect(await caretOf(tab1)).toEqual(['Written in the very'.length, 'Written in the very'.length]);
    expect(await caretOf(tab2)).toEqual([7, 7]);
    // Tab 2 continues from there: its edit is saved on top (no conflict) and appears in tab 1.
    await tab2.keyboard.type(' down');
    await tab2.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => hypothesisOf(tab1), { timeout: 10_000 }).toBe('Written down in the very first tab.');
    expect(await caretOf(tab1)).toEqual(['Written in the very'.length, 'Written in the very'.length]);
    expect(await t.server.store.artifacts.getDraft(sessionId)).toMatchObject({ fields: { hypothesis: 'Written down in the very first tab.' }, version: 3 });
    await tab2.getByLabel('Your hypothesis').scrollIntoViewIfNeeded();
    await tab2.screenshot({ path: path.join(SHOTS, `two-tabs-live-${viewport.width}.png`) });

    // Both tabs edit at once: the first save wins, the other tab keeps its text and gets the notice.
    const conflictIn = async (): Promise<{ behind: Page; ahead: Page; kept: string }> => {
      await Promise.all([tab1.getByLabel('Your hypothesis').fill('Tab 1 at the same time.'), tab2.getByLabel('Your hypothesis').fill('Tab 2 at the same time.')]);
      await Promise.race([tab1.getByTestId('draft-conflict').waitFor({ timeout: 15_000 }), tab2.getByTestId('draft-conflict').waitFor({ timeout: 15_000 })]);
      const behind = (await tab1.getByTestId('draft-conflict').count()) > 0 ? tab1 : tab2;
      const ahead = behind === tab1 ? tab2 : tab1;
      await ahead.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
      return { behind, ahead, kept: await hypothesisOf(ahead) };
    };
    const first = await conflictIn();
    const notice = first.behind.getByTestId('draft-conflict');
    expect(await notice.textContent()).toContain('changed in another tab or window');
    expect(await saveStateOf(first.behind)).toBe('conflict');
    expect(await hypothesisOf(first.behind)).not.toBe(first.kept); // its own text, not overwritten by the push
    expect((await t.server.store.artifacts.getDraft(sessionId))?.fields).toEqual({ hypothesis: first.kept });
    await notice.scrollIntoViewIfNeeded();
    await first.behind.screenshot({ path: path.join(SHOTS, `two-tabs-conflict-${viewport.width}.png`) });

    // Loading the newer draft shows the other tab's text; later edits save on top of it and appear live.
    await first.behind.getByRole('button', { name: 'Load the newer version' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(await hypothesisOf(first.behind)).toBe(first.kept);
    await first.behind.getByLabel('Your hypothesis').fill('Loaded, then edited.');
    await first.behind.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => hypothesisOf(first.ahead), { timeout: 10_000 }).toBe('Loaded, then edited.');

    // Again at once; this time the tab that is behind keeps its version, which then appears in the other tab.
    const second = await conflictIn();
    const mine = await hypothesisOf(second.behind);
    await second.behind.getByRole('button', { name: 'Keep this version' }).click();
    await second.behind.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    expect(await second.behind.getByTestId('draft-conflict').count()).toBe(0);
    await expect.poll(() => hypothesisOf(second.ahead), { timeout: 10_000 }).toBe(mine);
    expect((await t.server.store.artifacts.getDraft(sessionId))?.fields).toEqual({ hypothesis: mine });
    expect(errors).toEqual([]);
    await context.close();
  });
});
