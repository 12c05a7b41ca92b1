/**
 * What the wizard console and the participant see, in Debian Chromium with two browser contexts (a researcher at
 * 1280 px, a participant on a 390 px phone, then the other way round) against a real server, the real `openai`
 * client and a local OpenAI-compatible server streaming slowly enough to watch a draft being written:
 *
 * - the queue previews the participant's message and says in words what is asked and where the draft stands,
 *   "Draft ready" once it is finished (not "drafting…" for the whole wait); the open item stands out;
 * - Alt+A while the model is still drafting says so in words (no red server string);
 * - the participant presses Stop while the researcher is typing: the researcher keeps the text and is told why
 *   the reply left the queue; the participant reads "You stopped this reply.";
 * - a discarded reply tells the participant no reply was sent and offers to send the message again;
 * - in wizard mode the model's draft can be put into the editor, and the shortcuts list only what works;
 * - the session transcript (and its replay) says where each reviewed reply came from, with the draft and a diff.
 *
 * Screenshots: test-results/wizard-*.png. The client is built into a temp folder first (vite).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { REPO_ROOT, startServerWithFakeModel, wizardStudiesDir, type ServerWithFakeModel } from '../support/wizardTestSupport';
import { reply } from '../support/fakeOpenAI';

/** About 30 tokens at 6 per second: the draft takes ~5 s to write. */
const DRAFT = 'Most museums in Lisbon close on Mondays, but the Gulbenkian garden and the Oceanarium stay open, so plan those for the first day of your trip.';
const SHOTS = path.join(REPO_ROOT, 'test-results');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let t: ServerWithFakeModel;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  t = await startServerWithFakeModel({
    prefix: 'tandem-woz-ux-',
    studiesDir: wizardStudiesDir({ review: { timeout_seconds: 600 }, wizard: { timeout_seconds: 600 } }),
    model: { tokensPerSecond: 6, responder: () => reply(DRAFT) },
    adminPassword: true,
  });
}, 180_000);

afterAll(() => t?.close());

async function researcher(studyId: string, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await t.browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${t.url}/admin`);
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Studies' }).waitFor();
  await page.goto(`${t.url}/admin/studies/${studyId}/wizard`);
  await page.getByRole('heading', { name: 'Wizard console' }).waitFor();
  return { context, page };
}

async function participant(studyId: string, pid: string, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const phone = viewport.width < 500;
  const context = await t.browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true } : {}) });
  const page = await context.newPage();
  await page.goto(`${t.url}/study/${studyId}?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree and want to take part' }).click();
  await page.getByRole('button', { name: 'Start the task' }).click();
  await page.getByRole('heading', { name: 'Chat with' }).waitFor();
  return { context, page };
}

async function say(page: Page, text: string) {
  await page.getByLabel('Message the assistant').fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

const sessionOf = async (studyId: string, pid: string) => (await t.server.store.withdrawals.findSessionIds(studyId, pid))[0]!;
const widthOf = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

describe('wizard console, what people see', () => {
  it('review at 1280 px with a participant on a phone: preview, draft ready, Alt+A while drafting, Stop while typing, discard', async () => {
    const r = await researcher('woz-review', DESKTOP);
    const p = await participant('woz-review', 'woz-ux-review', PHONE);

    await say(p.page, 'Which museums open on Monday?');
    const item = r.page.getByTestId('wizard-queue-item').first();
    await item.waitFor();
    expect(await item.getByTestId('wizard-preview').textContent()).toBe('“Which museums open on Monday?”');
    expect(await item.textContent()).toContain('Check the model’s draft · condition reviewed');
    expect(await item.textContent()).not.toMatch(/review · reviewed|wizard · wizard/);
    expect(await item.getByTestId('wizard-item-status').textContent()).toBe('Model drafting…');
    // Unselected, an item is dark text on white (not a blue button with grey text on it).
    expect(await item.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color])).toEqual(['rgb(255, 255, 255)', 'rgb(28, 31, 36)']);

    await item.click();
    // The open item stands out: aria-current, and a background unlike an unselected button's.
    expect(await item.getAttribute('aria-current')).toBe('true');
    expect(await item.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(232, 239, 255)');
    // …with dark text on it (the session and the wait stay readable).
    expect(await item.locator('.wizard-queue-session').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(28, 31, 36)');
    expect(await item.getByTestId('wizard-wait').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(28, 31, 36)');
    await r.page.getByRole('heading', { name: 'Model draft (the model is still writing…)' }).waitFor();
    // Alt+A before the draft is finished: a sentence, not the server's refusal in red.
    await r.page.keyboard.press('Alt+a');
    expect(await r.page.getByTestId('wizard-notice').textContent()).toBe(
      'The model is still writing its draft. Approve it once it is finished, or edit it or write your own reply.',
    );
    expect(await r.page.locator('.error-box').count()).toBe(0);
    expect(await r.page.getByTestId('wizard-shortcuts').textContent()).toContain('Alt+A approve the draft');
    await r.page.screenshot({ path: path.join(SHOTS, 'wizard-review-drafting-1280.png') });

    // Once the draft is finished the queue says so (it is refreshed by the server), and Approve is enabled.
    await item.getByTestId('wizard-item-status').filter({ hasText: 'Draft ready' }).waitFor({ timeout: 20_000 });
    await r.page.getByRole('heading', { name: 'Model draft (finished)' }).waitFor();
    expect(await r.page.getByRole('button', { name: 'Approve draft' }).isEnabled()).toBe(true);
    await expect.poll(() => r.page.getByTestId('wizard-notice').count()).toBe(0); // the "still writing" note went with the wait

    // The researcher starts typing; the participant presses Stop. The text stays, with the reason.
    const editor = r.page.getByLabel('Reply (edit the draft)');
    await editor.fill('Let me check the opening hours for you: the Gulbenkian garden is open.');
    await p.page.getByRole('button', { name: 'Stop the reply' }).click();
    const closed = r.page.getByTestId('wizard-closed');
    await closed.waitFor();
    expect(await closed.textContent()).toContain('The participant pressed Stop, so this reply was closed and nothing was sent.');
    expect(await editor.inputValue()).toBe('Let me check the opening hours for you: the Gulbenkian garden is open.');
    expect(await r.page.getByRole('button', { name: 'Copy your text' }).isVisible()).toBe(true);
    expect(await r.page.getByRole('button', { name: 'Send edited draft' }).isDisabled()).toBe(true);
    // Nobody holds a closed reply, and its shortcuts are gone with it.
    expect(await r.page.getByText('Another researcher holds this reply.').count()).toBe(0);
    expect(await r.page.getByTestId('wizard-shortcuts').count()).toBe(0);
    await r.page.screenshot({ path: path.join(SHOTS, 'wizard-stopped-1280.png') });
    await p.page.getByTestId('reply-note').filter({ hasText: 'You stopped this reply.' }).waitFor();
    expect(await widthOf(p.page)).toBeLessThanOrEqual(PHONE.width);

    // A discarded reply: the participant is told no reply was sent, and can send the message again.
    await r.page.getByRole('button', { name: 'Close' }).click();
    await say(p.page, 'Is the tram running?');
    const next = r.page.getByTestId('wizard-queue-item').filter({ hasText: 'Is the tram running?' });
    await next.click();
    // The shortcut acts on the open reply, so wait until its panel is there (its detail is fetched on click).
    await r.page.getByRole('heading', { name: /^Model draft/ }).waitFor();
    await r.page.keyboard.press('Alt+d');
    await r.page.getByText('Nobody is waiting.').waitFor();
    const unsent = p.page.getByTestId('chat-unsent');
    await unsent.waitFor();
    expect(await unsent.textContent()).toContain('No reply was sent to your last message. You can send it again, or write a new one.');
    expect(await p.page.getByTestId('reply-note').last().textContent()).toBe('No reply was sent to this message.');
    expect(await p.page.locator('.messages').textContent()).not.toContain('Stopped before the end');
    await unsent.scrollIntoViewIfNeeded();
    await p.page.screenshot({ path: path.join(SHOTS, 'wizard-discarded-participant-390.png') });
    await p.page.getByRole('button', { name: 'Send it again' }).click();
    await r.page.getByTestId('wizard-queue-item').filter({ hasText: 'Is the tram running?' }).waitFor();
    expect(await p.page.locator('.messages li.user').allTextContents()).toEqual([
      expect.stringContaining('Which museums open on Monday?'),
      expect.stringContaining('Is the tram running?'),
      expect.stringContaining('Is the tram running?'),
    ]);
    await r.page.getByTestId('wizard-queue-item').first().click();
    await r.page.keyboard.press('Alt+d');
    await r.context.close();
    await p.context.close();
  }, 150_000);

  it('wizard mode with the console on a 390 px phone: the draft goes into the editor, the shortcuts list only what works', async () => {
    const r = await researcher('woz-wizard', PHONE);
    const p = await participant('woz-wizard', 'woz-ux-wizard', DESKTOP);
    await say(p.page, 'Plan a slow weekend in Rome.');
    const item = r.page.getByTestId('wizard-queue-item').first();
    await item.waitFor();
    expect(await item.textContent()).toContain('Write the reply yourself · condition wizard');
    expect(await item.getByTestId('wizard-item-status').textContent()).toBe('Waiting for your reply');
    await item.click();
    const shortcuts = await r.page.getByTestId('wizard-shortcuts').textContent();
    expect(shortcuts).not.toContain('approve the draft');
    expect(shortcuts).toContain('Alt+A put the model’s draft in the editor');
    expect(shortcuts).not.toContain('Alt+R');
    await r.page.getByTestId('wizard-draft').filter({ hasText: DRAFT }).waitFor({ timeout: 20_000 });
    expect(await r.page.getByLabel('Your reply').inputValue()).toBe('');
    await r.page.getByRole('button', { name: 'Put the draft in the editor' }).click();
    expect(await r.page.getByLabel('Your reply').inputValue()).toBe(DRAFT);
    expect(await r.page.evaluate(() => document.activeElement?.id)).toBe('wizard-editor');
    await r.page.getByLabel('Your reply').fill('');
    await r.page.locator('body').click({ position: { x: 5, y: 5 } });
    await r.page.keyboard.press('Alt+a');
    expect(await r.page.getByLabel('Your reply').inputValue()).toBe(DRAFT);
    expect(await widthOf(r.page)).toBeLessThanOrEqual(PHONE.width);
    await r.page.getByTestId('wizard-draft').scrollIntoViewIfNeeded();
    await r.page.screenshot({ path: path.join(SHOTS, 'wizard-mode-390.png') });
    await r.page.getByRole('button', { name: 'Send reply' }).click();
    await p.page.locator('.messages li.assistant', { hasText: 'Gulbenkian' }).waitFor();
    await p.page.screenshot({ path: path.join(SHOTS, 'wizard-mode-participant-1280.png') });
    await r.context.close();
    await p.context.close();
  }, 150_000);

  it('the transcript shows the origin of each reply, the model draft and the diff, at 1280 and 390 px', async () => {
    const r = await researcher('woz-review', DESKTOP);
    const p = await participant('woz-review', 'woz-ux-provenance', DESKTOP);
    await say(p.page, 'Where should we eat?');
    const item = r.page.getByTestId('wizard-queue-item').filter({ hasText: 'Where should we eat?' });
    await item.click();
    await item.getByTestId('wizard-item-status').filter({ hasText: 'Draft ready' }).waitFor({ timeout: 20_000 });
    await r.page.getByLabel('Reply (edit the draft)').fill(DRAFT.replace('Mondays', 'Mondays (check first)'));
    await r.page.getByRole('button', { name: 'Send edited draft' }).click();
    await p.page.locator('.messages li.assistant', { hasText: 'check first' }).waitFor();
    await p.context.close();

    // A study with a review condition links its wizard console (travel-planning, without one, does not: adminStatusSwitch.test.ts).
    await r.page.goto(`${t.url}/admin/studies/woz-review`);
    await r.page.getByRole('link', { name: 'Wizard console' }).waitFor();
    const sessionId = await sessionOf('woz-review', 'woz-ux-provenance');
    const model = (await t.server.store.messages.listForSession(sessionId)).find((m) => m.role === 'assistant')!.model!;
    for (const viewport of [DESKTOP, PHONE]) {
      await r.page.setViewportSize(viewport);
      await r.page.goto(`${t.url}/admin/sessions/${sessionId}`);
      const reply = r.page.getByTestId('transcript-message').filter({ has: r.page.getByTestId('reply-provenance') });
      await reply.waitFor();
      expect(await reply.getByTestId('reply-origin').textContent()).toBe('Model draft, edited by a researcher (14 characters changed)');
      expect(await reply.locator('.admin-msg-meta').textContent()).toContain(`draft by ${model}`);
      await reply.getByText('Model draft and the changes').click();
      expect(await reply.getByTestId('reply-model-draft').textContent()).toBe(DRAFT);
      expect(await reply.locator('[data-testid="reply-diff"] ins').allTextContents()).toEqual([expect.stringContaining('(check first)')]);
      expect(await reply.locator('[data-testid="reply-diff"] del').count()).toBe(0);
      expect(await reply.getByTestId('reply-diff').isVisible()).toBe(true);
      expect(await widthOf(r.page)).toBeLessThanOrEqual(viewport.width);
      await reply.scrollIntoViewIfNeeded();
      await r.page.screenshot({ path: path.join(SHOTS, `wizard-provenance-${viewport.width}.png`) });
    }
    await r.context.close();
  }, 150_000);
});
