/**
 * The participant pages on a phone (390×844) and a small tablet (800×1000), both studies, in Debian
 * Chromium against the real server: no step scrolls sideways (not even after the assistant sends a
 * wide code block and a table), Send and Submit are on screen and clickable without force, Likert
 * items sit on one row (tablet) or one point per row (phone), the consent text is not hidden in a
 * scroll box, the confirm dialog is centred and fully on screen, empty required fields are marked one
 * by one and the marks clear as they are filled. Also the problem page: a closed study and an unknown
 * one say what happened and what to do, with no useless Reload.
 *
 * Needs the built client (dist/client; built here if missing). Screenshots: /tmp/tandem-layout-*.png.
 */
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerAndBrowser, startTempDataDirServer, type PageServer, type ServerAndBrowser } from '../support/serverAndBrowser';
import { plotPng } from '../support/png';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'tablet', width: 800, height: 1000 },
] as const;

// A reply as wide as replies get: a long unbroken code line, a long word and a table.
const WIDE_REPLY = [
  'Here is a start. Read the data with **pandas**:',
  '',
  '```python',
  `df = pd.read_csv("study_habits.csv"); summary = df.groupby("section")[["hours_studied", "sleep_hours", "coffees_per_day", "exam_score"]].agg(["mean", "std", "min", "max"])`,
  '```',
  '',
  'See https://example.org/a/very/long/path/that/does/not/break/anywhere/because/it/is/one/word/of/many/characters',
  '',
  '| day | morning | afternoon | evening | cost (EUR) | notes about the vegetarian options nearby |',
  '| --- | --- | --- | --- | --- | --- |',
  '| 1 | late breakfast | old town walking tour | dinner in the market hall | 240 | several vegetarian stalls |',
].join('\n');

let fake: FakeOpenAI;
let t: ServerAndBrowser;
let closedServer: PageServer;

beforeAll(async () => {
  fake = await startFakeOpenAI({ tokensPerSecond: 400, responder: () => reply(WIDE_REPLY) });
  const common = { port: 0, studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') };
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () => startTempDataDirServer('tandem-e2e-layout-', { ...common, openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 10 } }),
  });
  closedServer = await startTempDataDirServer('tandem-e2e-layout-closed-', { ...common, env: {}, initialStudyStatus: 'closed' });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await closedServer?.close();
  await fake?.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/tandem-layout-${name}.png`, fullPage: true });

/** The document is no wider than the viewport: nothing scrolls sideways. */
async function expectNoSideScroll(page: Page, where: string) {
  const widths = await page.evaluate(() => ({
    viewport: window.innerWidth,
    document: document.documentElement.scrollWidth,
    body: document.body.scrollWidth,
  }));
  expect(widths.document, `${where}: document ${widths.document}px wide in a ${widths.viewport}px viewport`).toBeLessThanOrEqual(widths.viewport);
  expect(widths.body, `${where}: body width`).toBeLessThanOrEqual(widths.viewport);
}

/** Scrolled into view, the control lies entirely inside the viewport (not cut off at either side). */
async function expectOnScreen(page: Page, control: Locator, what: string) {
  await control.scrollIntoViewIfNeeded();
  const box = await control.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, `${what} has no box`).not.toBeNull();
  expect(box!.x, `${what} left edge`).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, `${what} right edge`).toBeLessThanOrEqual(viewport.width);
  expect(box!.y, `${what} top edge`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${what} bottom edge`).toBeLessThanOrEqual(viewport.height);
}

/** Radios of every Likert item: one row (same top) or one column (same left, going down). */
async function likertLayouts(page: Page): Promise<{ item: string; layout: 'row' | 'column' | 'mixed' }[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('fieldset')].map((fieldset) => {
      const boxes = [...fieldset.querySelectorAll('input[type="radio"]')].map((input) => input.getBoundingClientRect());
      const sameTop = boxes.every((b) => Math.abs(b.top - boxes[0]!.top) < 1);
      const sameLeft = boxes.every((b) => Math.abs(b.left - boxes[0]!.left) < 1);
      const goingDown = boxes.every((b, i) => i === 0 || b.top > boxes[i - 1]!.top);
      return { item: fieldset.id, layout: sameTop ? 'row' : sameLeft && goingDown ? 'column' : 'mixed' };
    }),
  );
}

const STUDIES = [
  {
    id: 'visualization',
    fill: async (page: Page) => {
      await page.getByLabel('Your hypothesis').fill('More hours studied go with higher exam scores.');
      await page.getByLabel('Analysis code').fill('import pandas as pd\ndf = pd.read_csv("study_habits.csv")');
      await page.getByLabel('Your plot (image)').setInputFiles({ name: 'plot.png', mimeType: 'image/png', buffer: plotPng(120, 80) });
      await page.getByRole('img', { name: /Your uploaded image/ }).waitFor();
      await page.getByLabel('Interpretation').fill('The plot shows a positive trend.');
    },
    requiredFields: 4,
  },
  {
    id: 'travel-planning',
    fill: async (page: Page) => {
      await page.getByLabel(/Your itinerary/).fill('Day 1: old town. Day 2: museums. Day 3: market hall. About €280 a day.');
    },
    requiredFields: 1,
  },
] as const;

describe.each(VIEWPORTS)('participant layout at $width×$height', (viewport) => {
  it.each(STUDIES)('$id: every step fits, controls are on screen, dialog centred, fields marked one by one', async (study) => {
    const context = await t.browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, hasTouch: viewport.name === 'phone' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const name = `${study.id}-${viewport.width}`;

    // Consent: the whole text is in the page flow, the eligibility sentence before the buttons.
    await page.goto(`${t.url}/study/${study.id}?participant_label=layout-${name}`);
    await page.getByRole('heading', { name: 'Consent to take part' }).waitFor();
    await expectNoSideScroll(page, 'consent');
    const consent = page.getByLabel('Consent text');
    const clipped = await consent.evaluate((el) => el.scrollHeight - el.clientHeight);
    expect(clipped, 'consent text hidden inside a scroll box').toBeLessThanOrEqual(1);
    const eligibility = page.getByText(/18 or older/);
    const agree = page.getByRole('button', { name: 'I agree and want to take part' });
    expect((await eligibility.boundingBox())!.y).toBeLessThan((await agree.boundingBox())!.y);
    expect(await eligibility.isVisible()).toBe(true);
    await expectOnScreen(page, agree, 'I agree');
    await shot(page, `${name}-1-consent`);
    await agree.click();

    await page.getByRole('heading', { name: /Instructions/ }).waitFor();
    await expectNoSideScroll(page, 'instructions');
    await shot(page, `${name}-2-instructions`);
    await page.getByRole('button', { name: 'Start the task' }).click();

    // Workspace after a wide reply
    const box = page.getByLabel('Message the assistant');
    await box.waitFor();
    await box.fill('How should I start?');
    const send = page.getByRole('button', { name: 'Send' });
    await expectOnScreen(page, send, 'Send');
    await send.click();
    await page.waitForFunction(() => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= 1, undefined, { timeout: 30_000 });
    expect(await page.locator('.messages li.assistant pre code').count()).toBe(1);
    await expectNoSideScroll(page, 'workspace after a code block');
    // The code block scrolls inside its bubble instead of widening the page.
    const pre = page.locator('.messages li.assistant pre').first();
    expect(await pre.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await box.fill('And then?');
    await expectOnScreen(page, send, 'Send after a code block');
    await send.click();
    await page.waitForFunction(() => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= 2, undefined, { timeout: 30_000 });
    await expectNoSideScroll(page, 'workspace after two replies');
    await shot(page, `${name}-3-workspace`);

    // Submit with nothing filled: every required field marked, and the marks clear as fields fill.
    const submit = page.getByRole('button', { name: 'Submit my answer' });
    await expectOnScreen(page, submit, 'Submit my answer');
    await submit.click();
    const fieldErrors = page.locator('.field-error');
    await fieldErrors.first().waitFor();
    expect(await fieldErrors.count()).toBe(study.requiredFields);
    expect(await page.locator('.artifact [aria-invalid="true"], section[aria-labelledby="artifact-heading"] [aria-invalid="true"]').count()).toBe(study.requiredFields);
    await page.getByRole('alert').filter({ hasText: 'Please fill in' }).waitFor();
    await expectNoSideScroll(page, 'workspace with field errors');
    await shot(page, `${name}-4-field-errors`);
    await study.fill(page);
    expect(await fieldErrors.count()).toBe(0);
    expect(await page.getByRole('alert').filter({ hasText: 'Please fill in' }).count()).toBe(0);
    await page.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });

    // The confirm dialog: centred, entirely on screen, its buttons clickable.
    await expectOnScreen(page, submit, 'Submit my answer (filled)');
    await submit.click();
    const dialog = page.getByRole('dialog', { name: 'Submit your answer?' });
    await dialog.waitFor();
    await expectOnScreen(page, dialog, 'confirm dialog');
    const dialogBox = (await dialog.boundingBox())!;
    const above = dialogBox.y;
    const below = viewport.height - (dialogBox.y + dialogBox.height);
    expect(Math.abs(above - below), `dialog not centred (${above}px above, ${below}px below)`).toBeLessThanOrEqual(2);
    await page.screenshot({ path: `/tmp/tandem-layout-${name}-5-confirm.png` });
    await page.getByRole('button', { name: 'Yes, submit' }).click();

    // Survey: one row on a tablet, one point per row on a phone, never a wrapped mix.
    await page.getByRole('button', { name: 'Submit the survey' }).waitFor();
    await expectNoSideScroll(page, 'survey');
    const layouts = await likertLayouts(page);
    expect(layouts.length).toBeGreaterThanOrEqual(4);
    const expected = viewport.name === 'phone' ? 'column' : 'row';
    expect(layouts.filter((l) => l.layout !== expected)).toEqual([]);
    await page.getByRole('button', { name: 'Submit the survey' }).click();
    await page.getByText(/Please answer all required questions/).waitFor();
    const missingBefore = await page.locator('fieldset .field-error').count();
    expect(missingBefore).toBeGreaterThanOrEqual(4);
    await shot(page, `${name}-6-survey-required`);
    for (const item of layouts) {
      const value = item.item === 'item-attention' ? '4' : '3';
      await page.locator(`#${item.item} input[value="${value}"]`).check();
    }
    expect(await page.locator('fieldset .field-error').count()).toBe(0);
    expect(await page.getByText(/Please answer all required questions/).count()).toBe(0);
    await shot(page, `${name}-7-survey-filled`);
    await page.getByRole('button', { name: 'Submit the survey' }).click();

    await page.getByRole('heading', { name: /Thank you/ }).waitFor();
    const stay = page.getByRole('button', { name: 'Stay on this page' });
    if (await stay.count()) await stay.click();
    await expectNoSideScroll(page, 'completion');
    await shot(page, `${name}-8-complete`);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('a closed study and an unknown one say what happened and what to do, with no Reload', async () => {
    const context = await t.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const page = await context.newPage();
    await page.goto(`${closedServer.url}/study/travel-planning?PROLIFIC_PID=pid-closed-${viewport.width}`);
    await page.getByRole('heading', { name: 'This study is not open right now' }).waitFor();
    const text = await page.locator('main').innerText();
    expect(text).toContain('Go back to Prolific and return the study');
    expect(text).not.toMatch(/status closed|not accepting participants/);
    expect(await page.getByRole('button').count()).toBe(0);
    await expectNoSideScroll(page, 'closed study');
    await shot(page, `closed-${viewport.width}`);

    await page.goto(`${t.url}/study/no-such-study?participant_label=lost`);
    await page.getByRole('heading', { name: 'We could not find this study' }).waitFor();
    expect(await page.locator('main').innerText()).toContain('Go back to the page that sent you here');
    expect(await page.getByRole('button').count()).toBe(0);
    await context.close();
  });
});
