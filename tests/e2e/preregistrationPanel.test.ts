/**
 * The study page's pre-registration in Debian Chromium against a real server, at 1280 and 390 px (issue 24):
 * going live asks to lock first in an in-page dialog (never window.confirm/prompt) and Enter locks; going live
 * without a lock takes its reason inside the dialog, by keyboard alone, refuses an empty one, and Escape cancels; the button says when nothing changed; after a system prompt is edited
 * and the server restarted, the page lists the deviation naming the field, once, and takes a justification. On a
 * phone nothing of the panel reaches past the screen and the button and the deviation are on screen and usable. Screenshots: /tmp/tandem-prereg-*.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer } from '../../server/app';
import { startTandem } from '../../wiring/startTandem';
import { FAST_OFFLINE_REPLIES, startServerAndBrowser, type PageServer, type ServerAndBrowser } from '../support/serverAndBrowser';
import { copyVisualizationStudy } from '../support/preregistrationFixture';
import { TEST_ADMIN_PASSWORD } from '../support/adminTestServer';

const files = copyVisualizationStudy();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-prereg-e2e-'));
let clientDir: string | undefined;
let current: RunningServer;
let t: ServerAndBrowser;

const start = (dir = dataDir) =>
  startTandem({
    dataDir: dir,
    port: 0,
    studiesDir: files.studiesDir,
    surveysDir: files.surveysDir,
    initialStudyStatus: 'draft',
    ...FAST_OFFLINE_REPLIES,
    env: {},
    logger: pino({ level: 'silent' }),
    ...(clientDir ? { clientDir } : {}),
  });

beforeAll(async () => {
  process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
  t = await startServerAndBrowser({
    client: 'temp',
    startServer: async (client): Promise<PageServer> => {
      clientDir = client.clientDir;
      current = await start();
      return { server: current, url: current.url, dataDir, close: () => current.close() };
    },
  });
}, 180_000);

afterAll(async () => {
  await t?.close();
  files.remove();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function openStudyPage(width: number, height: number, url = current.url): Promise<{ page: Page; dialogs: string[]; close: () => Promise<void> }> {
  const context = await t.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d: Dialog) => {
    dialogs.push(d.message());
    void d.accept();
  });
  await page.goto(`${url}/admin`);
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('link', { name: 'Exploring study habits with an AI assistant' }).click();
  await page.getByRole('heading', { name: 'Pre-registration' }).waitFor();
  return { page, dialogs, close: () => context.close() };
}

/** The label (or text) of the focused element: where the keyboard is. */
const focusedLabel = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement as HTMLInputElement | HTMLButtonElement | HTMLTextAreaElement | null;
    return e && e !== document.body ? (e.labels?.[0]?.textContent ?? e.textContent ?? '').trim() : '(nothing focused)';
  });

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** Elements of the pre-registration panel whose right edge is past the viewport. */
const panelOverflow = (page: Page) =>
  page.evaluate(() =>
    [document.querySelector('[data-testid="preregistration"]')!, ...document.querySelectorAll('[data-testid="preregistration"] *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((e) => `${e.tagName.toLowerCase()} ${e.textContent?.slice(0, 40) ?? ''}`),
  );

describe('pre-registration on the study page', () => {
  it('at 1280 px: going live locks first, a second lock changes nothing, a deviation after a restart takes a justification', async () => {
    let { page, dialogs, close } = await openStudyPage(1280, 900);
    const panel = page.getByTestId('preregistration');
    await panel.getByText('Not locked yet.').waitFor();

    await page.getByLabel('Study status').selectOption('live');
    await page.getByRole('button', { name: 'Apply' }).click();
    const ask = page.getByRole('dialog', { name: 'Lock the pre-registration before going live?' });
    await ask.waitFor();
    // Locking is the default and the focus starts on it; by keyboard: Tab to Cancel, Tab to the button, Enter.
    expect(await ask.getByLabel('Lock the plan, then go live').isChecked()).toBe(true);
    expect(await focusedLabel(page)).toBe('Lock the plan, then go live');
    await page.screenshot({ path: '/tmp/tandem-prereg-lock-dialog-1280.png' });
    await page.keyboard.press('Tab');
    expect(await focusedLabel(page)).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await focusedLabel(page)).toBe('Lock and go live');
    await page.keyboard.press('Enter');
    await page.getByText('Status set to live. The plan was locked first.').waitFor();
    expect(await ask.isVisible()).toBe(false);
    // No browser dialog (window.confirm / window.prompt) was shown.
    expect(dialogs).toEqual([]);
    await panel.getByText(/Locked as version 1 on .* by researcher\./).waitFor();
    expect((await current.store.preregistrations.versions('visualization')).map((v) => v.version)).toEqual([1]);

    await panel.getByRole('button', { name: 'Lock a new version' }).click();
    await panel.getByText(/Nothing to lock: already locked as version 1: the plan and the study are unchanged/).waitFor();
    expect(await current.store.preregistrations.versions('visualization')).toHaveLength(1);
    await panel.getByTestId('no-deviations').waitFor();
    await close();

    // The researcher edits a system prompt and restarts the server.
    files.edit(files.studyFile, 'Once you understand, answer\n      concisely', 'Once you understand, answer\n      briefly');
    await current.close();
    current = await start();
    ({ page, dialogs, close } = await openStudyPage(1280, 900));
    const list = page.getByTestId('deviations');
    await list.getByText('conditions.1.system_prompt changed after the lock').waitFor();
    expect(await list.locator('li').count()).toBe(1);
    expect(await list.locator('li').first().textContent()).toMatch(/^studies\/visualization\.yaml: conditions\.1\.system_prompt changed after the lock/);
    await page.getByLabel('Justification').fill('a typo fix in the prompt; no participant saw the old wording');
    await page.getByRole('button', { name: 'Save' }).click();
    await list.getByText('Justification: a typo fix in the prompt; no participant saw the old wording').waitFor();
    await page.screenshot({ path: '/tmp/tandem-prereg-1280.png', fullPage: true });
    // Reloading shows the same one deviation (recorded once, not again on each view).
    await page.reload();
    await page.getByTestId('deviations').waitFor();
    expect(await page.getByTestId('deviations').locator('li').count()).toBe(1);
    expect(await noSidewaysScroll(page)).toBe(true);
    await close();
  }, 120_000);

  it('at 390 px: the panel fits the screen; the button and the deviation are on screen and usable', async () => {
    const { page, close } = await openStudyPage(390, 844);
    const panel = page.getByTestId('preregistration');
    await panel.scrollIntoViewIfNeeded();
    const button = panel.getByRole('button', { name: 'Lock a new version' });
    await button.scrollIntoViewIfNeeded();
    const box = (await button.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    const item = page.getByTestId('deviations').locator('li').first();
    const itemBox = (await item.boundingBox())!;
    expect(itemBox.x + itemBox.width).toBeLessThanOrEqual(390);
    // Nothing in the panel reaches past the screen (its long paths and field names wrap).
    expect(await panelOverflow(page)).toEqual([]);
    // The study changed since version 1 (the edited prompt): locking again keeps version 2 beside it.
    await button.click();
    await panel.getByText('Plan locked: locked version 2 (version 1 stays on record).').waitFor();
    await panel.getByText(/Locked as version 2 on .* \(2 versions on record\)\./).waitFor();
    expect((await current.store.preregistrations.versions('visualization')).map((v) => v.version)).toEqual([1, 2]);
    await page.screenshot({ path: '/tmp/tandem-prereg-390.png', fullPage: true });
    await close();
  }, 60_000);

  it('at 390 px: going live without a lock takes the reason inside the dialog, by keyboard; Escape cancels; an empty reason is refused', async () => {
    // A study whose plan was never locked: its own data folder, so nothing of the tests above is in it.
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-prereg-e2e-optout-'));
    const other = await start(otherDir);
    const { page, dialogs, close } = await openStudyPage(390, 844, other.url);
    try {
      await page.getByLabel('Study status').selectOption('live');
      await page.getByRole('button', { name: 'Apply' }).click();
      const ask = page.getByRole('dialog', { name: 'Lock the pre-registration before going live?' });
      await ask.waitFor();
      await page.keyboard.press('Escape');
      await page.getByText('Status not changed.').waitFor();
      expect((await other.store.studies.get('visualization'))!.status).toBe('draft');

      await page.getByRole('button', { name: 'Apply' }).click();
      await ask.waitFor();
      // The focus starts on the choice; ArrowDown picks going live without a lock, Tab goes on to its reason.
      expect(await focusedLabel(page)).toBe('Lock the plan, then go live');
      await page.keyboard.press('ArrowDown');
      expect(await ask.getByLabel('Go live without a lock').isChecked()).toBe(true);
      await page.keyboard.press('Tab');
      expect(await focusedLabel(page)).toBe('Why the study goes live without a locked plan');
      // An empty reason: refused in the dialog, which stays open with the focus back in the field.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await focusedLabel(page)).toBe('Go live without a lock');
      await page.keyboard.press('Enter');
      await ask.getByRole('alert').getByText('Reason: state the reason in a sentence.').waitFor();
      expect(await focusedLabel(page)).toBe('Why the study goes live without a locked plan');
      expect((await other.store.studies.get('visualization'))!.status).toBe('draft');
      await page.keyboard.type('a replication whose plan is the original authors\' registration');
      // The dialog and its field fit the phone's screen.
      for (const box of [await ask.boundingBox(), await ask.getByLabel('Why the study goes live without a locked plan').boundingBox()]) {
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      }
      await page.screenshot({ path: '/tmp/tandem-prereg-optout-390.png' });
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByText('Status set to live.', { exact: true }).waitFor();
      expect((await other.store.studies.get('visualization'))!.status).toBe('live');
      const optOut = (await other.store.audit.list({ studyId: 'visualization' })).filter((a) => a.action === 'preregistration_opt_out');
      expect(optOut.map((a) => a.details)).toEqual([{ reason: "a replication whose plan is the original authors' registration" }]);
      expect(await other.store.preregistrations.versions('visualization')).toEqual([]);
      expect(dialogs).toEqual([]);
    } finally {
      await close();
      await other.close();
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  }, 90_000);
});
