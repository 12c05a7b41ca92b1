/**
 * The researcher dashboard in Debian Chromium with two browser contexts against a real server:
 * a researcher logs in and watches a participant's session appear and move step by step, opens the
 * transcript (a message holding an XSS payload stays inert text), replays it, and exports the study
 * as a zip. The client is built into a temp folder first (vite), so dist/ is not touched.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminTestServer, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { startServerAndBrowser, type ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'travel-planning';
const XSS = 'Hello <img src=x onerror="window.__xss=1;alert(1)"> and <script>window.__xss=2</script> **not bold** <b id="injected">b</b>';

let t: ServerAndBrowser;

beforeAll(async () => {
  t = await startServerAndBrowser({ client: 'temp', startServer: (client) => startAdminTestServer({}, client) });
}, 120_000);

afterAll(() => t?.close());

async function monitorStep(page: Page): Promise<string | null> {
  const cell = page.getByTestId('monitor-row').first().getByTestId('monitor-step');
  return (await cell.count()) ? cell.textContent() : null;
}

describe('researcher dashboard', () => {
  it('watches a live session step by step, shows the transcript inert, replays and exports', async () => {
    const researcher = await t.browser.newContext({ acceptDownloads: true });
    const participant = await t.browser.newContext();
    const admin = await researcher.newPage();
    const dialogs: Dialog[] = [];
    admin.on('dialog', (d) => {
      dialogs.push(d);
      void d.dismiss();
    });

    // log in (a wrong password first)
    await admin.goto(`${t.url}/admin`);
    await admin.getByRole('heading', { name: 'Researcher login' }).waitFor();
    await admin.getByLabel('Password').fill('wrong-password');
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.getByRole('alert').filter({ hasText: 'wrong password' }).waitFor();
    await admin.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.getByRole('heading', { name: 'Studies' }).waitFor();
    await admin.getByRole('link', { name: 'Planning a trip with an AI assistant' }).click();
    await admin.getByRole('heading', { name: /Live monitor/ }).waitFor();
    await admin.getByText('No active sessions.').waitFor();

    // the participant opens the study link: the session appears at the consent step
    const p = await participant.newPage();
    await p.goto(`${t.url}/study/${STUDY}?PROLIFIC_PID=dashboard-watch-001`);
    await p.getByRole('button', { name: 'I agree and want to take part' }).waitFor();
    await admin.getByTestId('monitor-row').first().waitFor({ timeout: 30_000 });
    expect(await monitorStep(admin)).toBe('consent');

    await p.getByRole('button', { name: 'I agree and want to take part' }).click();
    await expect.poll(() => monitorStep(admin), { timeout: 30_000 }).toBe('instructions');

    await p.getByRole('button', { name: 'Start the task' }).click();
    await expect.poll(() => monitorStep(admin), { timeout: 30_000 }).toBe('workspace');

    const box = p.getByLabel('Message the assistant');
    await box.fill(XSS);
    await box.press('Enter');
    // participant message + offline assistant reply
    await expect.poll(async () => Number(await admin.getByTestId('monitor-messages').first().textContent()), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(await admin.getByTestId('monitor-row').first().getByText('connected').count()).toBe(1);

    // the participant submits the itinerary: the monitor follows to the survey step
    await p.getByLabel('Your itinerary (day by day, with rough costs)').fill('Day 1: Alfama and a fado dinner (EUR 150). Day 2: Belem (EUR 120). Day 3: Sintra (EUR 180).');
    await p.getByRole('button', { name: 'Submit my answer' }).click();
    await p.getByRole('dialog', { name: 'Submit your answer?' }).waitFor();
    await p.getByRole('button', { name: 'Yes, submit' }).click();
    await expect.poll(() => monitorStep(admin), { timeout: 30_000 }).toBe('survey');

    // open the transcript
    await admin.getByTestId('monitor-row').first().getByRole('link').click();
    await admin.getByRole('heading', { name: 'Transcript' }).waitFor();
    const first = admin.getByTestId('transcript-message').first();
    await first.waitFor();
    expect(await first.locator('.admin-msg-text').textContent()).toBe(XSS);
    // inert: no element from the payload exists, nothing ran
    expect(await admin.locator('#injected').count()).toBe(0);
    expect(await admin.getByTestId('transcript').locator('img, script, b').count()).toBe(0);
    expect(await admin.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await admin.screenshot({ path: '/tmp/tandem-admin-session.png', fullPage: true });

    // replay: at the very start no message is shown and the step is consent
    const slider = admin.getByLabel('Replay');
    const min = Number(await slider.getAttribute('min'));
    await slider.evaluate((el, value) => {
      const input = el as HTMLInputElement;
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      setter.call(input, String(value));
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, min);
    await admin.getByTestId('replay-time').filter({ hasText: 'step consent · 0/' }).waitFor();
    expect(await admin.getByTestId('transcript-message').count()).toBe(0);
    await admin.getByRole('button', { name: 'Show all' }).click();
    await expect.poll(() => admin.getByTestId('transcript-message').count()).toBeGreaterThanOrEqual(2);

    // back to the study and export the dataset as a zip
    await admin.getByRole('link', { name: `← study ${STUDY}` }).click();
    await admin.getByRole('button', { name: 'Export dataset (zip)' }).waitFor();
    const [download] = await Promise.all([admin.waitForEvent('download', { timeout: 30_000 }), admin.getByRole('button', { name: 'Export dataset (zip)' }).click()]);
    const file = path.join(t.dataDir, 'dashboard-export.zip');
    await download.saveAs(file);
    const listing = execFileSync('unzip', ['-l', file], { encoding: 'utf8' });
    expect(listing).toContain(`tandem-${STUDY}/sessions.csv`);
    expect(listing).toContain(`tandem-${STUDY}/manifest.json`);
    const messages = execFileSync('unzip', ['-p', file, `tandem-${STUDY}/messages.jsonl`], { encoding: 'utf8' });
    expect(messages).toContain('window.__xss=1'); // the text itself is data, kept verbatim
    expect(messages).not.toContain('dashboard-watch-001');
    await admin.getByTestId('export-message').filter({ hasText: 'Exported 1 session(s)' }).waitFor();

    // judge and analysis buttons with progress; the report's plots appear in a sandboxed frame
    // (this study has no image field, so there is no choice to show images to the judge)
    expect(await admin.getByLabel(/Show uploaded images to the judge/).count()).toBe(0);
    await admin.getByRole('button', { name: 'Run the judge' }).click();
    await admin.getByTestId('run-judge').filter({ hasText: 'judge: done' }).waitFor({ timeout: 30_000 });
    await admin.getByRole('button', { name: 'Run the analysis' }).click();
    await admin.getByTestId('run-analysis').filter({ hasText: 'analysis: done' }).waitFor({ timeout: 30_000 });
    const report = admin.frameLocator('iframe[title="Analysis report"]');
    await report.locator('svg').first().waitFor({ timeout: 10_000 });
    await admin.screenshot({ path: '/tmp/tandem-admin-study.png', fullPage: true });

    expect(dialogs.map((d) => d.message())).toEqual([]);
    await researcher.close();
    await participant.close();
  });

  it('offers showing uploaded images to the judge for a study with an image field, by keyboard, and runs the judge with it', async () => {
    const researcher = await t.browser.newContext();
    const admin = await researcher.newPage();
    await admin.goto(`${t.url}/admin`);
    await admin.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.getByRole('link', { name: 'Exploring study habits with an AI assistant' }).click();

    const attach = admin.getByRole('checkbox', { name: 'Show uploaded images to the judge (vision model; images are not redacted)' });
    await attach.waitFor();
    expect(await attach.isChecked()).toBe(false);
    await attach.focus();
    await admin.keyboard.press('Space');
    expect(await attach.isChecked()).toBe(true);
    // the warning names the image field and is tied to the checkbox
    const note = admin.locator('#judge-images-note');
    expect(await note.textContent()).toContain('Your plot (image)');
    expect(await attach.getAttribute('aria-describedby')).toBe('judge-images-note');

    await admin.getByRole('button', { name: 'Run the judge' }).click();
    await admin.getByTestId('run-judge').filter({ hasText: 'judge: done' }).waitFor({ timeout: 30_000 });
    const runs = (await t.server.store.audit.list({ studyId: 'visualization' })).filter((e) => e.action === 'judge_run');
    expect(runs.map((e) => e.details)).toEqual([{ images: 'attach' }]);
    await researcher.close();
  });
});
