/**
 * The researcher's live monitor of a group study in Debian Chromium: two participant contexts (1280 and 390 px) wait
 * in the lobby and form one group with the offline facilitator, while a researcher context (1280 px, then one at
 * 390 px) watches the study page: the lobby's count and oldest wait (no identities), the group's members and their
 * presence (here, typing, disconnected, replaced by agent), the room's messages as they arrive under display names
 * (an HTML payload shown as text), and the shared document's text. Real server, real SQLite file, the client built
 * into the run's temp folder. Screenshots: test-results/group-monitor-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { groupStudyDirs } from '../support/groupTestStudies';
import { consentedMember, openPage, startGroupServer, writeStudyVariant, type OpenPage } from '../support/groupBrowserSupport';
import type { ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'group-watch';
const SHOTS = path.resolve(import.meta.dirname, '../../test-results');
const XSS = '<img src=x onerror="window.__xss=1"><b>bold?</b>';
let t: ServerAndBrowser;
const dirs = groupStudyDirs();

/** group-demo.yaml for two people, an offline facilitator that answers every message, and a 5 s dropout grace with a stand-in. */
const WATCH_EDITS = [
  ['size: { min: 2, max: 3 }', 'size: { min: 2, max: 2 }'],
  ['speaks: { every_n_messages: 3 }', 'speaks: every_message'],
  ['      - name: Facilitator\n        provider: openai', '      - name: Facilitator\n        provider: offline'],
  ['dropout: { grace_seconds: 30, policy: continue }', 'dropout: { grace_seconds: 5, policy: replace_with_agent }'],
] as const;

beforeAll(async () => {
  process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
  writeStudyVariant(dirs, 'group-demo.yaml', STUDY, WATCH_EDITS);
  t = await startGroupServer('tandem-e2e-group-monitor-', dirs, 'temp');
}, 180_000);

afterAll(async () => {
  await t?.close();
  dirs.cleanup();
});

const member = (browser: Browser, label: string, width: number) => consentedMember(browser, t.url, STUDY, label, width);

async function researcher(browser: Browser, width: number): Promise<OpenPage> {
  const opened = await openPage(browser, width, `${t.url}/admin`);
  const { page } = opened;
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Studies' }).waitFor();
  await page.goto(`${t.url}/admin/studies/${STUDY}`);
  await page.getByRole('heading', { name: 'Groups' }).waitFor({ timeout: 15_000 });
  return opened;
}

const seat = (page: Page, name: string) => page.getByTestId('monitor-member').filter({ hasText: name });
const presenceOf = (page: Page, name: string, presence: string) =>
  page.locator(`[data-testid="monitor-member"][data-presence="${presence}"]`).filter({ hasText: name }).waitFor({ timeout: 20_000 });

describe('the live monitor of a group study', () => {
  it('shows the lobby, the group\'s presence, its room as it happens and the shared document, at 1280 and 390 px', async () => {
    const watcher = await researcher(t.browser, 1280);
    const lobby = watcher.page.getByTestId('monitor-lobby');
    await expect(lobby.getByTestId('lobby-waiting').textContent()).resolves.toBe('0');

    const one = await member(t.browser, 'watch-one', 1280);
    await one.page.getByTestId('lobby-count').waitFor({ timeout: 15_000 });
    await lobby.getByTestId('lobby-waiting').filter({ hasText: '1' }).waitFor({ timeout: 15_000 });
    await lobby.getByTestId('lobby-oldest').filter({ hasText: /s \(timeout 30 s\)/ }).waitFor({ timeout: 5_000 });
    // Counts only: nothing of who waits (no participant label, no session id).
    expect(await watcher.page.getByTestId('monitor-lobbies').textContent()).not.toContain('watch-one');

    const two = await member(t.browser, 'watch-two', 390);
    for (const p of [one, two]) await p.page.getByRole('heading', { name: 'Your group' }).waitFor({ timeout: 20_000 });
    const group = watcher.page.getByTestId('monitor-group');
    await group.waitFor({ timeout: 15_000 });
    await lobby.getByTestId('lobby-waiting').filter({ hasText: '0' }).waitFor({ timeout: 15_000 });
    await presenceOf(watcher.page, 'Member 1', 'here');
    await presenceOf(watcher.page, 'Member 2', 'here');
    await presenceOf(watcher.page, 'Facilitator', 'here');
    // A person's name links to their session page; the labels of the link never show.
    await expect(seat(watcher.page, 'Member 1').locator('a').getAttribute('href')).resolves.toMatch(/^\/admin\/sessions\/[0-9a-f-]{36}$/);
    expect(await group.textContent()).not.toMatch(/watch-(one|two)/);

    // A message arrives on the monitor as it does in the room, as text under the sender's display name.
    await one.page.getByLabel('Message to the group').fill(`Lake or museum? ${XSS}`);
    await one.page.getByRole('button', { name: 'Send' }).click();
    const room = watcher.page.getByTestId('monitor-room');
    const line = room.locator('li[data-sender-kind="participant"]').filter({ hasText: 'Lake or museum?' });
    await line.waitFor({ timeout: 15_000 });
    await expect(line.locator('strong').textContent()).resolves.toBe('Member 1');
    await expect(line.locator('.message-text').textContent()).resolves.toBe(`Lake or museum? ${XSS}`);
    expect(await room.locator('img, b').count()).toBe(0);
    expect(await watcher.page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    await room.locator('li[data-sender-kind="agent"]:not([data-streaming])').filter({ hasText: /\S/ }).first().waitFor({ timeout: 20_000 });
    await expect(room.locator('li[data-sender-kind="agent"] strong').first().textContent()).resolves.toBe('Facilitator');

    // Typing, then the shared document's text.
    await two.page.getByLabel('Message to the group').fill('I am writing');
    await presenceOf(watcher.page, 'Member 2', 'typing');
    await two.page.getByTestId('shared-plan').fill('09:00 meet at the station\n10:00 boat on the lake');
    await watcher.page.getByTestId('monitor-doc-plan').filter({ hasText: '10:00 boat on the lake' }).waitFor({ timeout: 15_000 });
    await expect(watcher.page.getByTestId('monitor-doc-plan').textContent()).resolves.toBe('09:00 meet at the station\n10:00 boat on the lake');

    // The same page on a phone: nothing wider than the screen, the group and its room shown.
    const phone = await researcher(t.browser, 390);
    await phone.page.getByTestId('monitor-room').locator('li[data-sender-kind="participant"]', { hasText: 'Lake or museum?' }).waitFor({ timeout: 15_000 });
    await phone.page.getByTestId('monitor-doc-plan').filter({ hasText: '10:00 boat on the lake' }).waitFor({ timeout: 15_000 });
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    fs.mkdirSync(SHOTS, { recursive: true });
    await watcher.page.getByTestId('monitor-group').screenshot({ path: path.join(SHOTS, 'group-monitor-1280.png') });
    await phone.page.getByTestId('monitor-group').screenshot({ path: path.join(SHOTS, 'group-monitor-390.png') });

    // Member 2 leaves: disconnected at once, and past the 5 s grace an AI takes the seat.
    await two.context.close();
    await presenceOf(watcher.page, 'Member 2', 'disconnected');
    await presenceOf(phone.page, 'Member 2', 'disconnected');
    await presenceOf(watcher.page, 'AI for Member 2', 'replaced by agent');
    await room.locator('li[data-sender-kind="system"]', { hasText: 'An AI agent' }).waitFor({ timeout: 10_000 });
    await expect(seat(watcher.page, 'Member 1').getAttribute('data-presence')).resolves.toBe('here');
    // The group's age keeps counting while pushes change the page (past the 5 s grace, at least 5 s).
    expect(await group.locator('.hint').first().textContent()).toMatch(/^live for (\d+ min \d+ s|[5-9] s|\d{2} s)/);

    expect([...one.errors, ...two.errors, ...watcher.errors, ...phone.errors]).toEqual([]);
    for (const c of [one, watcher, phone]) await c.context.close();
  }, 180_000);
});
