/**
 * The takeover finding of issue 15 in Debian Chromium against the real server (SQLite in a temp dir,
 * offline assistant): a second browser opening a link with only the victim's PROLIFIC_PID gets a fresh
 * session of its own (as anyone with that link would: no oracle on who took part) with an offer to continue
 * with a resume code, and none of the victim's session; the participant's own code (shown on the consent
 * receipt and in the header) opens the session there, and the first browser's token stops working.
 *
 * Needs the built client (dist/client): built here if missing.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { FAST_OFFLINE_REPLIES, startServerAndBrowser, startTempDataDirServer, type ServerAndBrowser } from '../support/serverAndBrowser';

let t: ServerAndBrowser;

beforeAll(async () => {
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () => startTempDataDirServer('tandem-e2e-takeover-', { port: 0, env: {}, ...FAST_OFFLINE_REPLIES, logger: createLogger('error') }),
  });
}, 180_000);

afterAll(() => t?.close());

const SHOTS = path.resolve(import.meta.dirname, '../../test-results');

async function freshBrowser(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  // A new context is a separate profile: no localStorage, so no token of anyone's session.
  const context = await browser.newContext({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
  return { context, page: await context.newPage() };
}

describe('resuming a session in another browser', () => {
  it('a PID-only link in a second browser offers the resume code; the code opens the session and retires the first browser', async () => {
    const link = `${t.url}/study/visualization?PROLIFIC_PID=e2e-takeover-victim`;
    const victim = await freshBrowser(t.browser);
    await victim.page.goto(link);
    await victim.page.getByRole('heading', { name: 'Consent to take part' }).waitFor();
    const code = (await victim.page.getByTestId('receipt-resume-code').textContent())!;
    expect(code).toMatch(/^[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}$/);
    await victim.page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await victim.page.getByRole('button', { name: 'Start the task' }).click();
    await victim.page.getByRole('heading', { name: 'Chat with' }).waitFor();
    expect(await victim.page.getByTestId('resume-code').textContent()).toContain(code);
    await victim.page.screenshot({ path: '/tmp/tandem-takeover-victim.png' });

    // Someone else (or the participant on another device) opens the same PID-only link.
    const other = await freshBrowser(t.browser);
    await other.page.goto(link);
    // A fresh session at its consent step (its own code), with the offer on top; "back" returns to it.
    await other.page.getByRole('heading', { name: 'Consent to take part' }).waitFor();
    expect(await other.page.getByTestId('receipt-resume-code').textContent()).not.toBe(code);
    await other.page.getByRole('button', { name: 'Continue that session with its resume code' }).click();
    await other.page.getByRole('heading', { name: 'Resume your session' }).waitFor();
    await other.page.getByRole('button', { name: 'I have not started this study before: start now' }).click();
    await other.page.getByRole('heading', { name: 'Consent to take part' }).waitFor();
    await other.page.getByRole('button', { name: 'Continue that session with its resume code' }).click();
    await other.page.getByRole('heading', { name: 'Resume your session' }).waitFor();
    const prompt = await other.page.locator('main').textContent();
    expect(prompt).not.toContain(code);
    expect(await other.page.getByRole('heading', { name: 'Chat with' }).count()).toBe(0);
    await other.page.screenshot({ path: '/tmp/tandem-takeover-prompt.png' });

    // A wrong code is refused with a clear message, and the victim keeps working meanwhile.
    const wrong = code.startsWith('2') ? `3${code.slice(1)}` : `2${code.slice(1)}`;
    await other.page.getByLabel('Resume code').fill(wrong);
    await other.page.getByRole('button', { name: 'Continue my session' }).click();
    await other.page.getByText(/does not match/).waitFor();
    expect(await victim.page.getByRole('heading', { name: 'Chat with' }).count()).toBe(1);

    // The right code (typed loosely) opens the session where the participant left it.
    await other.page.getByLabel('Resume code').fill(code.toLowerCase().replace('-', ' '));
    await other.page.getByRole('button', { name: 'Continue my session' }).click();
    await other.page.getByRole('heading', { name: 'Chat with' }).waitFor();
    expect(await other.page.getByTestId('resume-code').textContent()).toContain(code);

    // The first browser's token was revoked: it falls back to the link, which asks for the code.
    await victim.page.getByRole('heading', { name: 'Resume your session' }).waitFor({ timeout: 20_000 });
    await victim.page.screenshot({ path: '/tmp/tandem-takeover-retired.png' });
    // The victim's session, and the fresh ones the link started in the second browser and on the victim's
    // browser's way back to the prompt (never consented, so left out of exports).
    const sessions = await t.server.store.identities.countByPlatformUserId('e2e-takeover-victim');
    expect(sessions).toBe(3);
    await victim.context.close();
    await other.context.close();
  }, 120_000);

  it('the wording agrees with what happens: a phone takes the session over, the desktop tab is told where it went and can take it back', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const link = `${t.url}/study/visualization?PROLIFIC_PID=e2e-takeover-words`;
    const desk = await freshBrowser(t.browser);
    await desk.page.goto(link);
    await desk.page.getByRole('heading', { name: 'Consent to take part' }).waitFor();
    const receipt = (await desk.page.getByTestId('consent-receipt').textContent())!;
    expect(receipt).toContain('if that browser asks for a resume code, type this one');
    expect(receipt).not.toContain('you will be asked for it');
    const code = (await desk.page.getByTestId('receipt-resume-code').textContent())!;
    await desk.page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await desk.page.getByRole('button', { name: 'Start the task' }).click();
    await desk.page.getByRole('heading', { name: 'Chat with' }).waitFor();

    const phone = await freshBrowser(t.browser, { width: 390, height: 844 });
    await phone.page.goto(link);
    // The phone starts a fresh session like anyone with this link; the offer sits above its consent, within 390 px.
    const offer = phone.page.getByTestId('resume-offer');
    await offer.waitFor();
    expect((await offer.boundingBox())!.x + (await offer.boundingBox())!.width).toBeLessThanOrEqual(390);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.page.screenshot({ path: path.join(SHOTS, 'resume-offer-390.png') });
    await phone.page.getByRole('button', { name: 'Continue that session with its resume code' }).click();
    await phone.page.getByRole('heading', { name: 'Resume your session' }).waitFor();
    const input = phone.page.getByLabel('Resume code');
    // The field is styled like the others: a monospace code, a border, within the phone's width.
    expect(await input.evaluate((el) => getComputedStyle(el).fontFamily)).toContain('monospace');
    expect(await input.evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('solid');
    const box = (await input.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await input.fill(code.startsWith('2') ? `3${code.slice(1)}` : `2${code.slice(1)}`);
    await phone.page.getByRole('button', { name: 'Continue my session' }).click();
    const alert = phone.page.getByRole('alert');
    await alert.filter({ hasText: /does not match/ }).waitFor();
    expect((await alert.textContent())!.trim()).toMatch(/^That resume code does not match this study link; .*\.$/);
    await phone.page.screenshot({ path: path.join(SHOTS, 'resume-wrong-code-390.png') });
    await input.fill(code);
    await phone.page.getByRole('button', { name: 'Continue my session' }).click();
    await phone.page.getByRole('heading', { name: 'Chat with' }).waitFor();
    expect(await phone.page.getByTestId('resume-code').textContent()).toContain(code);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // The desktop tab lost the session: it says where it went, and repeats the code it showed, not "the browser where you started".
    await desk.page.getByRole('heading', { name: 'Resume your session' }).waitFor({ timeout: 20_000 });
    const moved = (await desk.page.getByTestId('resume-moved').textContent())!;
    expect(moved).toContain('Your session was opened in another browser with its resume code, so it now continues there');
    expect(moved).not.toContain('the browser where you started');
    expect(await desk.page.getByTestId('resume-known-code').textContent()).toBe(code);
    expect(await desk.page.evaluate(() => document.activeElement?.tagName)).not.toBe('INPUT');
    await desk.page.screenshot({ path: path.join(SHOTS, 'resume-moved-1280.png') });
    await desk.page.getByLabel('Resume code').fill(code);
    await desk.page.getByRole('button', { name: 'Continue my session' }).click();
    await desk.page.getByRole('heading', { name: 'Chat with' }).waitFor();
    expect(await desk.page.getByTestId('resume-code').textContent()).toContain(code);
    await phone.page.getByRole('heading', { name: 'Resume your session' }).waitFor({ timeout: 20_000 });
    await desk.context.close();
    await phone.context.close();
  }, 120_000);
});
