/**
 * Finding a person by their Prolific ID and withdrawing them, in Debian Chromium with two browser contexts (a
 * participant, a researcher) against a real server: the sessions page finds the session by the platform id
 * (shown by pseudonym, the id itself nowhere in the table); a mistyped id in the withdrawal form is named as
 * matching nothing before anything is recorded; the real id's confirmation counts the sessions and lists their
 * pseudonyms. At 1280 px (search) and 390 px (withdrawal). Screenshots: test-results/find-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminTestServer, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { startServerAndBrowser, type ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'travel-planning';
const PID = '65f1c0ffee42b7a9d3e10c55';
const SHOTS = path.resolve(import.meta.dirname, '../../test-results');

let t: ServerAndBrowser;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  t = await startServerAndBrowser({ client: 'temp', startServer: (client) => startAdminTestServer({}, client) });
}, 180_000);

afterAll(() => t?.close());

describe('finding a participant by platform id', () => {
  it('searches by Prolific ID at 1280 px, and withdraws with the count and the pseudonyms at 390 px', async () => {
    const participant = await t.browser.newContext();
    const p = await participant.newPage();
    await p.goto(`${t.url}/study/${STUDY}?PROLIFIC_PID=${PID}&SESSION_ID=find-visit-1`);
    await p.getByRole('button', { name: 'I agree and want to take part' }).click();
    await p.getByRole('button', { name: 'Start the task' }).waitFor();
    const other = await participant.newPage();
    await other.goto(`${t.url}/study/${STUDY}?PROLIFIC_PID=someone-else-77&SESSION_ID=find-visit-2`);
    await other.getByRole('button', { name: 'I agree and want to take part' }).waitFor();

    const researcher = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const admin = await researcher.newPage();
    await admin.goto(`${t.url}/admin`);
    await admin.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.getByRole('heading', { name: 'Studies' }).waitFor();
    await admin.goto(`${t.url}/admin/studies/${STUDY}/sessions`);
    await admin.getByTestId('session-row').nth(1).waitFor();

    await admin.getByLabel('Pseudonym, session id or platform id').fill(PID);
    await admin.getByTestId('sessions-count').filter({ hasText: 'found by platform id' }).waitFor();
    expect(await admin.getByTestId('sessions-count').textContent()).toBe('1–1 of 1 · found by platform id (shown by pseudonym only)');
    const rows = admin.getByTestId('session-row');
    expect(await rows.count()).toBe(1);
    const pseudonym = (await rows.first().locator('td.admin-id').textContent())!;
    expect(await admin.getByTestId('sessions-table').textContent()).not.toContain(PID);
    await admin.screenshot({ path: path.join(SHOTS, 'find-by-prolific-id-1280.png') });
    await admin.getByLabel('Pseudonym, session id or platform id').fill(`${PID.slice(0, -1)}6`);
    await admin.getByTestId('sessions-count').filter({ hasText: 'No session matches' }).waitFor();

    // On a phone: a typo first, named as matching nothing.
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.goto(`${t.url}/admin/studies/${STUDY}`);
    const idBox = admin.getByRole('textbox', { name: 'Platform id' });
    await idBox.fill(`${PID.slice(0, -1)}6`);
    await admin.getByRole('button', { name: 'Withdraw and delete data' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'No session has this platform id' }).waitFor();
    expect(await dialog.getByTestId('withdraw-none').textContent()).toContain('Check the id for a typo');
    expect(await dialog.getByRole('button', { name: 'Record a tombstone anyway' }).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await t.server.store.withdrawals.count(STUDY)).toBe(0);

    // The right id: the count and the pseudonym, within the phone's width.
    await idBox.fill(PID);
    await admin.getByRole('button', { name: 'Withdraw and delete data' }).click();
    await dialog.getByRole('heading', { name: 'Withdraw this participant: 1 session?' }).waitFor();
    expect(await dialog.getByTestId('withdraw-count').textContent()).toContain('1 session of');
    expect(await dialog.getByTestId('withdraw-pseudonyms').locator('li code').allTextContents()).toEqual([pseudonym]);
    const box = (await dialog.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await admin.screenshot({ path: path.join(SHOTS, 'find-withdraw-confirm-390.png') });
    await dialog.getByRole('button', { name: 'Delete 1 session' }).click();
    await admin.getByText(/Withdrawn: 1 session\(s\) deleted/).waitFor();
    expect(await t.server.store.withdrawals.findSessionIds(STUDY, PID)).toEqual([]);
    expect(await t.server.store.withdrawals.findSessionIds(STUDY, 'someone-else-77')).toHaveLength(1);
    await researcher.close();
    await participant.close();
  }, 150_000);
});
