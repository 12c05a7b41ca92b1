/**
 * A group session in Debian Chromium: three browser contexts (two at 1280 px, one at 390 px) wait in the lobby, form
 * one group, chat with the offline facilitator (messages under display names), edit the shared plan live; one reloads
 * and gets the history and the plan back; one drops and, past the grace, an AI agent takes the seat, disclosed to the
 * others. Real server, real SQLite file; the built client (dist/client) is needed.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupStudyDirs } from '../support/groupTestStudies';
import { consentedMember, startGroupServer } from '../support/groupBrowserSupport';
import type { ServerAndBrowser } from '../support/serverAndBrowser';

let t: ServerAndBrowser;
const dirs = groupStudyDirs();

beforeAll(async () => {
  t = await startGroupServer('tandem-e2e-groups-', dirs, 'dist');
}, 180_000);

afterAll(async () => {
  await t?.close();
  dirs.cleanup();
});

const member = (browser: Browser, label: string, width: number) => consentedMember(browser, t.url, 'group-room', label, width);

describe('a group session in Chromium', () => {
  it('lobby, room, shared plan, a reload and a dropout', async () => {
    const one = await member(t.browser, 'e2e-one', 1280);
    await one.page.getByTestId('lobby-count').filter({ hasText: '1 of 3 people here' }).waitFor({ timeout: 15_000 });
    await expect(one.page.getByTestId('lobby-countdown').textContent()).resolves.toMatch(/starts within 0:[0-9]{2}/);
    const two = await member(t.browser, 'e2e-two', 1280);
    await one.page.getByTestId('lobby-count').filter({ hasText: '2 of 3 people here' }).waitFor({ timeout: 15_000 });
    const three = await member(t.browser, 'e2e-three', 390);
    for (const p of [one, two, three]) await p.page.getByRole('heading', { name: 'Your group' }).waitFor({ timeout: 20_000 });

    await one.page.getByLabel('Message to the group').fill('Hello team, lake or museum?');
    await one.page.getByRole('button', { name: 'Send' }).click();
    const firstLine = three.page.getByTestId('group-messages').locator('li[data-sender-kind="participant"]', { hasText: 'Hello team, lake or museum?' });
    await firstLine.waitFor({ timeout: 15_000 });
    await expect(firstLine.locator('strong').textContent()).resolves.toBe('Member 1');
    await three.page.getByTestId('group-messages').locator('li[data-sender-kind="agent"]:not([data-streaming])').first().waitFor({ timeout: 20_000 });
    await expect(three.page.getByTestId('group-messages').locator('li[data-sender-kind="agent"] strong').first().textContent()).resolves.toBe('Facilitator');

    await two.page.getByTestId('shared-plan').fill('09:00 meet at the station');
    await three.page.waitForFunction(() => (document.querySelector('[data-testid="shared-plan"]') as HTMLTextAreaElement | null)?.value === '09:00 meet at the station', null, { timeout: 15_000 });

    // The 390 px member reloads: the room comes back with its history and the plan.
    await three.page.reload();
    await three.page.getByRole('heading', { name: 'Your group' }).waitFor({ timeout: 20_000 });
    await three.page.getByTestId('group-messages').locator('li[data-sender-kind="participant"]', { hasText: 'Hello team, lake or museum?' }).waitFor({ timeout: 10_000 });
    await three.page.waitForFunction(() => (document.querySelector('[data-testid="shared-plan"]') as HTMLTextAreaElement | null)?.value === '09:00 meet at the station', null, { timeout: 15_000 });
    const width = await three.page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);

    // Member 1 leaves; past the 5 s grace an AI takes the seat, announced in the room.
    await one.context.close();
    await two.page.getByTestId('group-members').locator('li', { hasText: 'AI for Member 1' }).waitFor({ timeout: 20_000 });
    await two.page.getByTestId('group-messages').locator('li[data-sender-kind="system"]', { hasText: 'An AI agent' }).waitFor({ timeout: 10_000 });
    expect([...two.errors, ...three.errors]).toEqual([]);
    await two.context.close();
    await three.context.close();
  }, 180_000);

  it('a person nobody joins is released after the lobby timeout: the lobby code on the open page and, reloaded, on the end page', async () => {
    const alone = await consentedMember(t.browser, t.url, 'group-release-fast', 'e2e-alone', 390);
    await alone.page.getByTestId('lobby-count').waitFor({ timeout: 15_000 });
    await alone.page.getByRole('heading', { name: 'No group could be formed' }).waitFor({ timeout: 20_000 });
    await expect(alone.page.getByTestId('lobby-code').textContent()).resolves.toBe('L0GRP2026');
    await alone.page.reload();
    await alone.page.getByRole('heading', { name: 'No group could be formed' }).waitFor({ timeout: 15_000 });
    await expect(alone.page.getByTestId('completion-code').textContent()).resolves.toBe('L0GRP2026');
    expect(await alone.page.getByText('The time for this study is up').count()).toBe(0);
    expect(alone.errors).toEqual([]);
    await alone.context.close();
  }, 60_000);
});
