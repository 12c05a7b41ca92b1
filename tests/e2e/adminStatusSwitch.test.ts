/**
 * The dashboard's study status switch and study link in Debian Chromium against a real server (issue 15):
 * switching a study with a session in progress to draft asks first and says how many sessions are in
 * progress (cancel changes nothing); the page shows the Prolific link with its per-visit SESSION_ID and
 * warns about sessions opened from a link without one. The participant mid-task keeps the session.
 * The client is built into a temp folder first (vite), so dist/ is not touched.
 */
import type { Dialog } from 'playwright-core';
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminTestServer, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { startServerAndBrowser, type ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'travel-planning';
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
    const token = await joinPidOnly('status-switch-pid-1');
    const context = await t.browser.newContext();
    const admin = await context.newPage();
    const dialogs: string[] = [];
    let accept = false;
    admin.on('dialog', (d: Dialog) => {
      dialogs.push(d.message());
      void (accept ? d.accept() : d.dismiss());
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
    expect(await admin.getByTestId('no-visit-id-warning').textContent()).toMatch(/1 session was opened from a link without a per-visit id/);

    // Cancel: nothing changes.
    await admin.getByLabel('Study status').selectOption('draft');
    await admin.getByRole('button', { name: 'Apply' }).click();
    await admin.getByText('Status not changed.').waitFor();
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]).toMatch(/Switch "live" to "draft"\? 1 session is in progress: they can finish/);
    expect((await t.server.store.studies.get(STUDY))!.status).toBe('live');

    // Confirm: the study is draft, and the participant mid-session keeps it.
    accept = true;
    await admin.getByRole('button', { name: 'Apply' }).click();
    await admin.getByText('Status set to draft.').waitFor();
    expect(dialogs).toHaveLength(2);
    expect((await t.server.store.studies.get(STUDY))!.status).toBe('draft');
    expect((await state(token)).step).toBe('consent');

    // Back to live: no question (nobody is affected).
    await admin.getByLabel('Study status').selectOption('live');
    await admin.getByRole('button', { name: 'Apply' }).click();
    await admin.getByText('Status set to live.').waitFor();
    expect(dialogs).toHaveLength(2);
    await context.close();
  }, 120_000);
});
