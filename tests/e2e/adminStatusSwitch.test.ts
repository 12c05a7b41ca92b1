/**
 * The dashboard's study status switch and study link in Debian Chromium against a real server (issue 15):
 * switching a study with a session in progress to draft asks first, in an in-page dialog, and says how many
 * sessions are in progress (cancel changes nothing); closing asks too; the last change's message goes when
 * another status is chosen; the page shows the Prolific link with its per-visit SESSION_ID and a copy button,
 * and warns about sessions opened from a link without one. The participant mid-task keeps the session.
 * In pilot, "Preview as participant" opens a pilot session in one click; the wizard console is linked only
 * from studies that use it. At 1280 and 390 px. Screenshots: test-results/status-*.png.
 * The client is built into a temp folder first (vite), so dist/ is not touched.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Dialog, Page } from 'playwright-core';
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminTestServer, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { startServerAndBrowser, type ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'travel-planning';
const SHOTS = path.resolve(import.meta.dirname, '../../test-results');

/** The in-page confirmation: its text, then Cancel or the confirm button. */
async function answer(admin: Page, confirm: boolean): Promise<string> {
  const dialog = admin.getByRole('dialog');
  await dialog.waitFor();
  const text = (await dialog.getByTestId('status-question').textContent())!;
  await dialog.getByRole('button', { name: confirm ? /^Switch to/ : 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  return text;
}
let t: ServerAndBrowser;

beforeAll(async () => {
  t = await startServerAndBrowser({ client: 'temp', startServer: (client) => startAdminTestServer({}, client) });
}, 120_000);

afterAll(() => t?.close());

async function joinPidOnly(pid: string): Promise<string> {
  const res = await fetch(`${t.url}/api/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ studyId: STUDY, params: { PROLIFIC_PID: pid } }) });
  const body = (await res.json()) as { data: { token: string } };
  return body.data.token;
}

async function state(token: string): Promise<{ step: string }> {
  const socket = connect(t.url, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  try {
    return await new Promise((resolve, reject) => {
      socket.once('connect_error', reject);
      socket.emit('session:state', {}, (reply: { ok: boolean; data: { step: string } }) => (reply.ok ? resolve(reply.data) : reject(new Error(JSON.stringify(reply)))));
    });
  } finally {
    socket.close();
  }
}

describe('study status switch', () => {
  it('asks before switching to draft with the number of sessions in progress; shows the link and the per-visit id warning', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const token = await joinPidOnly('status-switch-pid-1');
    const context = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const admin = await context.newPage();
    // No native dialog any more: every question is asked in the page.
    const native: string[] = [];
    admin.on('dialog', (d: Dialog) => {
      native.push(d.message());
      void d.dismiss();
    });
    await admin.goto(`${t.url}/admin`);
    await admin.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.getByRole('heading', { name: 'Studies' }).waitFor();
    await admin.getByRole('link', { name: 'Planning a trip with an AI assistant' }).click();
    await admin.getByRole('heading', { name: 'Status' }).waitFor();

    expect(await admin.getByTestId('study-link').textContent()).toBe(
      `${t.url}/study/${STUDY}?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}`,
    );
    expect(await admin.getByRole('button', { name: 'Copy the participant link' }).isVisible()).toBe(true);
    expect(await admin.getByTestId('no-visit-id-warning').textContent()).toMatch(/1 session was opened from a link without a per-visit id/);
    // travel-planning has no review or wizard condition: no link to the wizard console.
    expect(await admin.getByRole('link', { name: 'Wizard console' }).count()).toBe(0);
    expect(await admin.getByTestId('preview-note').textContent()).toContain('switch the study to pilot');

    // Cancel: nothing changes.
    await admin.getByLabel('Study status').selectOption('draft');
    await admin.getByRole('button', { name: 'Apply' }).click();
    expect(await answer(admin, false)).toMatch(/Switch "live" to "draft"\? 1 session is in progress: they can finish .*The study link will answer "not found"/);
    await admin.getByText('Status not changed.').waitFor();
    expect((await t.server.store.studies.get(STUDY))!.status).toBe('live');

    // Confirm: the study is draft, and the participant mid-session keeps it. The page's reload of the study list
    // after the change is held until the next status is picked, as on a slow connection: the late reload must not
    // undo the pick.
    await admin.getByRole('button', { name: 'Apply' }).click();
    let releaseReload!: () => void;
    const reloadHeld = new Promise<void>((resolve) => (releaseReload = resolve));
    await admin.route('**/api/admin/studies', async (route) => {
      await reloadHeld;
      await route.continue();
    });
    await answer(admin, true);
    await admin.getByText('Status set to draft.').waitFor();
    expect((await t.server.store.studies.get(STUDY))!.status).toBe('draft');
    expect((await state(token)).step).toBe('consent');

    // Choosing another status takes the last change's message away.
    await admin.getByLabel('Study status').selectOption('pilot');
    expect(await admin.getByText('Status set to draft.').count()).toBe(0);
    releaseReload(); // from here on the route lets every request through at once
    await admin.getByTestId('study-status').filter({ hasText: /^draft$/ }).waitFor();
    expect(await admin.getByLabel('Study status').inputValue()).toBe('pilot');
    // Back to pilot: no question (nobody is turned away).
    await admin.getByRole('button', { name: 'Apply' }).click();
    await admin.getByText('Status set to pilot.').waitFor();
    expect(await admin.getByRole('dialog').isVisible()).toBe(false);

    // In pilot, one click opens a pilot session as a participant would see it.
    const [preview] = await Promise.all([context.waitForEvent('page'), admin.getByTestId('preview-link').click()]);
    await preview.getByRole('button', { name: 'I agree and want to take part' }).waitFor();
    await preview.close();
    const list = await t.server.store.sessionList.listPage(STUDY, { pilot: 'only', judged: 'any' }, 'started', 'asc', 10, 0);
    expect(list.total).toBe(1);

    // Closing asks too, with the same in-page dialog.
    await admin.getByLabel('Study status').selectOption('closed');
    await admin.getByRole('button', { name: 'Apply' }).click();
    const question = await answer(admin, true);
    expect(question).toMatch(/^Switch "pilot" to "closed"\? .*New participants will be refused\.$/);
    await admin.getByText('Status set to closed.').waitFor();
    expect(native).toEqual([]);
    await admin.screenshot({ path: path.join(SHOTS, 'status-1280.png') });

    // On a phone: the page fits and the dialog is within the screen.
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.getByLabel('Study status').selectOption('draft');
    await admin.getByRole('button', { name: 'Apply' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.waitFor();
    const box = (await dialog.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await admin.screenshot({ path: path.join(SHOTS, 'status-dialog-390.png') });
    await answer(admin, false);
    await context.close();
  }, 120_000);
});
