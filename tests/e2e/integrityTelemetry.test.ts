/**
 * Integrity telemetry end to end in Debian Chromium: a participant of the visualization study types a
 * little, pastes into the chat and into two artifact fields, and switches away from the tab for over a
 * minute (visibility emulated: document.visibilityState overridden and visibilitychange dispatched; the
 * page's clock fast-forwarded by Playwright), then submits. The export's sessions.csv must show the pastes,
 * the typing, the time away, the browser class and the flags mostly_pasted, no_typing and long_away; no
 * science file holds the raw User-Agent string. Real server, real SQLite file, real socket.io; the offline
 * demo assistant answers.
 *
 * Needs the built client (dist/client): `npx vite build` (built here if missing).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { exportStudy } from '../../research/exports/exportStudy';
import { LONG_AWAY_S } from '../../common/integrityFlags';
import { startServerAndBrowser, startTempDataDirServer, type ServerAndBrowser } from '../support/serverAndBrowser';
import { plotPng } from '../support/png';
import { TEST_ADMIN_PASSWORD } from '../support/adminTestServer';

const ROOT = path.resolve(import.meta.dirname, '../..');

let t: ServerAndBrowser;

beforeAll(async () => {
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () => {
      process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
      return startTempDataDirServer('tandem-e2e-telemetry-', {
        port: 0,
        host: '127.0.0.1',
        studiesDir: path.join(ROOT, 'studies'),
        surveysDir: path.join(ROOT, 'surveys'),
        offlineReplyDelayMs: 0,
        offline: { tokensPerSecond: 0 },
        env: {},
        logger: createLogger('error'),
      });
    },
  });
});

afterAll(async () => {
  await t?.close();
  delete process.env.ADMIN_PASSWORD;
});

/** What a paste does in the browser: a paste event (the app records its length), then the text inserted as inputType insertFromPaste. */
async function pasteInto(field: Locator, text: string) {
  await field.evaluate((el, pasted) => {
    const area = el as HTMLTextAreaElement;
    area.focus();
    const data = new DataTransfer();
    data.setData('text/plain', pasted);
    area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(area, area.value + pasted);
    area.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
  }, text);
}

/** Real key presses (input events with inputType insertText). */
async function typeInto(page: Page, field: Locator, text: string) {
  await field.click();
  await page.keyboard.type(text, { delay: 40 });
}

async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('integrity telemetry in Chromium', () => {
  it('records pastes, typing and time away, and the export flags the session', async () => {
    const context = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const userAgent = await page.evaluate(() => navigator.userAgent);
    // Every socket.io event the page sends, by name (telemetry must go in batches, never per keystroke).
    const sentEvents: string[] = [];
    page.on('websocket', (ws) =>
      ws.on('framesent', ({ payload }) => {
        const m = /^42\d*\["([^"]+)"/.exec(typeof payload === 'string' ? payload : payload.toString());
        if (m) sentEvents.push(m[1]!);
      }),
    );
    await page.clock.install();

    await page.goto(`${t.url}/study/visualization?PROLIFIC_PID=pid-tele-1&STUDY_ID=st-tele&SESSION_ID=se-tele-1`);
    await page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await page.getByRole('button', { name: 'Start the task' }).click();
    await page.getByRole('heading', { name: 'Chat with' }).waitFor();

    // Chat: one typed message, one pasted
    const chat = page.getByLabel('Message the assistant');
    const typedQuestion = 'Which columns?';
    await typeInto(page, chat, typedQuestion);
    await chat.press('Enter');
    await page.locator('.messages li.assistant[data-status="complete"]').first().waitFor({ timeout: 15_000 });
    const pastedQuestion = 'Please explain how I should model exam_score as a function of hours_studied, with code. '.padEnd(100, '.');
    await pasteInto(chat, pastedQuestion);
    await chat.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= 2, null, { timeout: 15_000 });

    // Artifact: hypothesis and interpretation pasted, code typed
    const hypothesis = 'Students who study more hours score higher on the exam; the relation is roughly linear. '.repeat(4).slice(0, 300);
    const interpretation = 'The scatter plot shows a clear positive trend between hours studied and exam score. '.repeat(3).slice(0, 200);
    await pasteInto(page.getByLabel('Your hypothesis'), hypothesis);
    const code = 'print(1)';
    await typeInto(page, page.getByLabel('Analysis code'), code);
    await pasteInto(page.getByLabel('Interpretation'), interpretation);
    await page.getByLabel('Your plot (image)').setInputFiles({ name: 'plot.png', mimeType: 'image/png', buffer: plotPng(60, 40) });
    await page.getByRole('img', { name: /Your uploaded image/ }).waitFor();

    // Switch away for longer than the long_away threshold, then come back
    await setHidden(page, true);
    await sleep(500); // the batch sent on hiding reaches the server
    await page.clock.fastForward((LONG_AWAY_S + 5) * 1000);
    await setHidden(page, false);

    await page.getByRole('button', { name: 'Submit my answer' }).click();
    await page.getByRole('button', { name: 'Yes, submit' }).click();
    await page.getByRole('heading', { name: 'A few questions about the task' }).waitFor({ timeout: 30_000 });

    // The last batch leaves when the workspace closes; wait until the server has it.
    const [session] = await t.server.store.sessions.listByStudy('visualization');
    let summary = (await t.server.store.telemetry.get(session!.id))?.summary;
    for (let i = 0; i < 100 && !(summary && summary.awayMs >= LONG_AWAY_S * 1000 && summary.artifact.pasteCount === 2 && summary.artifact.typedChars >= code.length); i++) {
      await sleep(100);
      summary = (await t.server.store.telemetry.get(session!.id))?.summary;
    }
    expect(errors).toEqual([]);
    await context.close();
    // 22 key presses, 3 pastes, a tab switch: a handful of batches, no legacy per-event telemetry.
    const batches = sentEvents.filter((e) => e === 'telemetry:batch').length;
    expect(batches).toBeGreaterThanOrEqual(2);
    expect(batches).toBeLessThanOrEqual(8);
    expect(sentEvents).not.toContain('telemetry');

    const outDir = path.join(t.dataDir, 'export');
    await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: 'visualization', outDir, includePilot: false, includeIdentities: false });
    const [row] = parse(readFileSync(path.join(outDir, 'sessions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const finalChars = typedQuestion.length + pastedQuestion.length + hypothesis.length + code.length + interpretation.length;
    const pastedChars = pastedQuestion.length + hypothesis.length + interpretation.length;
    expect(row).toMatchObject({
      paste_count: '3',
      pasted_chars: String(pastedChars),
      final_chars: String(finalChars),
      typed_chars: String(typedQuestion.length + code.length),
      pasted_share: String(Math.round((pastedChars / finalChars) * 1000) / 1000),
      artifact_pasted_share: String(Math.round(((hypothesis.length + interpretation.length) / (hypothesis.length + code.length + interpretation.length)) * 1000) / 1000),
      ua_device: 'desktop',
      ua_browser: 'chrome',
      mostly_pasted: 'true',
      no_typing: 'true',
      long_away: 'true',
      integrity_flags: 'mostly_pasted;no_typing;long_away',
    });
    expect(Number(row!.telemetry_batches)).toBeGreaterThanOrEqual(2);
    expect(Number(row!.away_count)).toBeGreaterThanOrEqual(1);
    expect(Number(row!.away_s)).toBeGreaterThanOrEqual(LONG_AWAY_S);
    expect(Number(row!.key_interval_median_ms)).toBeGreaterThan(0);
    // Key intervals come from real key presses 40 ms apart (plus browser jitter): the median sits well under a second.
    expect(Number(row!.key_interval_median_ms)).toBeLessThan(1000);

    // The raw User-Agent string is in no file of the dataset; the codebook documents the new columns.
    for (const file of readdirSync(outDir).filter((f) => /\.(csv|jsonl|json|md)$/.test(f)))
      expect(readFileSync(path.join(outDir, file), 'utf8').includes(userAgent), file).toBe(false);
    expect(readFileSync(path.join(outDir, 'codebook.md'), 'utf8')).toContain('| `mostly_pasted` |');
    expect(JSON.parse(readFileSync(path.join(outDir, 'manifest.json'), 'utf8')).schema_version).toBe('1.7.0');

    // The dashboard's session page shows the same flags and measures.
    const researcher = await t.browser.newContext();
    const admin = await researcher.newPage();
    await admin.goto(`${t.url}/admin`);
    await admin.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.getByRole('heading', { name: 'Studies' }).waitFor();
    await admin.goto(`${t.url}/admin/sessions/${session!.id}`);
    const section = admin.getByTestId('integrity');
    await section.getByRole('heading', { name: 'Integrity' }).waitFor();
    expect(await section.getByTestId('integrity-flags').locator('strong').allTextContents()).toEqual(['mostly_pasted', 'no_typing', 'long_away']);
    expect(await section.textContent()).toContain(`${pastedChars} characters in 3 paste(s)`);
    expect(await section.textContent()).toContain('desktop, chrome');
    await section.screenshot({ path: '/tmp/tandem-integrity-section.png' });
    await researcher.close();
  }, 120_000);
});
