/**
 * Researcher pages on a phone and the chat's details, in Debian Chromium with two browser contexts (a
 * participant, a researcher) against a real server with the offline assistant: at 390 px the study page and the
 * session page are no wider than the screen (each overflowing element is named when they are); at 1280 px too.
 * The participant's own code and table are formatted; the survey has no running clock; the session page shows
 * the survey's questions and the labels of the answers, not item ids and bare numbers; the login error is a
 * sentence. Screenshots: test-results/researcher-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminTestServer, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { startServerAndBrowser, type ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'travel-planning';
const SHOTS = path.resolve(import.meta.dirname, '../../test-results');

let t: ServerAndBrowser;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  t = await startServerAndBrowser({ client: 'temp', startServer: (client) => startAdminTestServer({}, client) });
}, 180_000);

afterAll(() => t?.close());

/** The page's width, and the elements that reach past the viewport (for the failure message). */
async function overflow(page: Page): Promise<{ width: number; culprits: string[] }> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const culprits: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.right > vw + 1 && r.width > 0) {
        const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.split(' ').join('.')}` : ''}`;
        culprits.push(`${name} right=${Math.round(r.right)} w=${Math.round(r.width)}`);
      }
    }
    return { width: document.documentElement.scrollWidth, culprits: culprits.slice(0, 12) };
  });
}

async function login(page: Page) {
  await page.goto(`${t.url}/admin`);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect((await alert.textContent())!.trim()).toBe('Wrong password: check it and try again. It was printed once when the server first started, unless ADMIN_PASSWORD sets it.');
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Studies' }).waitFor();
}

describe('researcher pages on a phone, and chat details', () => {
  it('a participant session, then the study and session pages at 390 and 1280 px', async () => {
    const participant = await t.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await participant.newPage();
    await p.goto(`${t.url}/study/${STUDY}?PROLIFIC_PID=phone-researcher-1`);
    await p.getByRole('button', { name: 'I agree and want to take part' }).click();
    await p.getByRole('button', { name: 'Start the task' }).click();
    // The task's heading takes focus without scrolling the header (progress, time, resume code) off the screen.
    await expect.poll(() => p.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect(await p.evaluate(() => window.scrollY)).toBe(0);
    expect((await p.locator('header.topbar').boundingBox())!.y).toBe(0);
    const box = p.getByLabel('Message the assistant');
    expect(await box.getAttribute('placeholder')).toBe('Type a message, then press Send.');
    expect(await p.locator('.chat-empty').textContent()).not.toContain('Shift+Enter');
    await box.fill('Compare `cheap` and `fast`:\n\n| city | days |\n| --- | --- |\n| Porto | 2 |');
    await p.getByRole('button', { name: 'Send', exact: true }).click();
    const mine = p.locator('.messages li.user').first();
    await mine.locator('table').waitFor();
    expect(await mine.locator('td').allTextContents()).toEqual(['Porto', '2']);
    expect(await mine.locator('code').first().evaluate((el) => getComputedStyle(el).fontFamily)).toContain('monospace');
    expect(await mine.textContent()).not.toContain('|');
    await p.locator('.messages li.assistant[data-status="complete"]').first().waitFor({ timeout: 20_000 });
    await mine.scrollIntoViewIfNeeded();
    await p.screenshot({ path: path.join(SHOTS, 'researcher-participant-table-390.png') });
    expect(await p.getByText(/Time left/).count()).toBe(1);
    await p.getByLabel('Your itinerary (day by day, with rough costs)').fill('Day 1: Porto. Day 2: Douro valley. Day 3: Braga.');
    await p.getByRole('button', { name: 'Submit my answer' }).click();
    await p.getByRole('button', { name: 'Yes, submit' }).click();
    await p.getByRole('heading', { name: /A few questions|questions/ }).first().waitFor();
    // The time limit does not apply to the survey: no clock runs there.
    expect(await p.getByText(/Time left/).count()).toBe(0);
    await participant.close();

    const researcher = await t.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const admin = await researcher.newPage();
    await login(admin);
    const sessionId = (await t.server.store.withdrawals.findSessionIds(STUDY, 'phone-researcher-1'))[0]!;
    for (const width of [390, 1280]) {
      await admin.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await admin.goto(`${t.url}/admin/studies/${STUDY}`);
      await admin.getByRole('heading', { name: /Live monitor/ }).waitFor();
      const study = await overflow(admin);
      expect(study.width, study.culprits.join('\n')).toBeLessThanOrEqual(width);
      await admin.screenshot({ path: path.join(SHOTS, `researcher-study-${width}.png`), fullPage: true });
      await admin.goto(`${t.url}/admin/sessions/${sessionId}`);
      await admin.getByRole('heading', { name: 'Transcript' }).waitFor();
      const session = await overflow(admin);
      expect(session.width, session.culprits.join('\n')).toBeLessThanOrEqual(width);
      await admin.screenshot({ path: path.join(SHOTS, `researcher-session-${width}.png`), fullPage: true });
    }
    await researcher.close();
  }, 180_000);
});
