/**
 * The wizard console in Debian Chromium with two browser contexts (a researcher, a participant) against a real
 * server, the real `openai` client and a local OpenAI-compatible server: a review with an edit, a replacement
 * (canned reply), a timeout fallback, and a wizard session end to end; the stored provenance and the dataset's
 * messages.jsonl. The client is built into a temp folder first (vite), so dist/ is not touched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { REPO_ROOT, startServerWithFakeModel, until, wizardStudiesDir, type ServerWithFakeModel } from '../support/wizardTestSupport';
import { exportStudy } from '../../research/exports/exportStudy';
import { reply } from '../support/fakeOpenAI';

const DRAFT = 'Try Lisbon: walk Alfama on day one.';
const XSS = '<img src=x onerror="window.__xss=1">';

let t: ServerWithFakeModel;

beforeAll(async () => {
  // The draft repeats the participant's words, so an HTML payload from them reaches the console as text.
  t = await startServerWithFakeModel({
    prefix: 'tandem-woz-e2e-',
    studiesDir: wizardStudiesDir({ review: { timeout_seconds: 8 }, wizard: { timeout_seconds: 600 } }),
    model: {
      tokensPerSecond: 40,
      responder: (request) => {
        const last = request.body.messages.at(-1) as { content: string };
        return reply(last.content.includes('<img') ? `You said ${XSS}` : DRAFT);
      },
    },
    adminPassword: true,
  });
}, 180_000);

afterAll(() => t?.close());

async function researcherPage(studyId: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await t.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${t.url}/admin`);
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Studies' }).waitFor();
  await page.goto(`${t.url}/admin/studies/${studyId}/wizard`);
  await page.getByRole('heading', { name: 'Wizard console' }).waitFor();
  return { context, page };
}

async function participantInWorkspace(studyId: string, pid: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await t.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${t.url}/study/${studyId}?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree and want to take part' }).click();
  await page.getByRole('button', { name: 'Start the task' }).click();
  await page.getByRole('heading', { name: 'Chat with' }).waitFor();
  return { context, page };
}

async function sendChat(page: Page, text: string) {
  const box = page.getByLabel('Message the assistant');
  await box.fill(text);
  await box.press('Enter');
}

const assistantTexts = (page: Page) => page.locator('.messages li.assistant:not([data-status="streaming"])').allTextContents();
const sessionOf = async (studyId: string, pid: string) => (await t.server.store.withdrawals.findSessionIds(studyId, pid))[0]!;
const reviewsOf = async (sessionId: string) => t.server.store.reviews.listForSession(sessionId);

describe('wizard console', () => {
  it('review: an edit, a canned replacement and a timeout fallback, seen by the participant as the assistant', async () => {
    const r = await researcherPage('woz-review');
    const p = await participantInWorkspace('woz-review', 'woz-e2e-review');
    const sessionId = await sessionOf('woz-review', 'woz-e2e-review');

    // 1. An edit. The participant sees the typing indicator only, never the draft.
    await sendChat(p.page, `Where should we go? ${XSS}`);
    await p.page.locator('.messages li[data-status="streaming"]').waitFor();
    await r.page.getByTestId('wizard-queue-item').first().click();
    await r.page.getByTestId('wizard-draft').filter({ hasText: `You said ${XSS}` }).waitFor({ timeout: 15_000 });
    expect(await r.page.locator('.wizard-console img').count()).toBe(0); // the payload is text, not markup
    expect(await r.page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await p.page.locator('.messages li.assistant').allTextContents()).not.toContainEqual(expect.stringContaining('You said'));
    await r.page.getByTestId('wizard-timer').filter({ hasText: /waited \d+ s/ }).waitFor();
    await r.page.keyboard.press('Alt+c');
    await r.page.getByText('You hold this reply.').waitFor();
    const editor = r.page.getByLabel('Reply (edit the draft)');
    await editor.fill('Lisbon or Porto both work well for three days.');
    await editor.press('Control+Enter');
    await p.page.locator('.messages li.assistant', { hasText: 'Lisbon or Porto both work well for three days.' }).waitFor();
    await r.page.getByText('Nobody is waiting.').waitFor();

    // 2. A replacement with a canned reply (Alt+1).
    await sendChat(p.page, 'Which city is cheaper?');
    await r.page.getByTestId('wizard-queue-item').first().click();
    await r.page.getByTestId('wizard-draft').filter({ hasText: DRAFT }).waitFor({ timeout: 15_000 });
    await r.page.keyboard.press('Alt+1');
    const canned = t.server.config.studies.get('woz-review')!.conditions[0]!.assistant!.canned_replies[0]!;
    expect(await r.page.getByLabel('Your reply').inputValue()).toBe(canned);
    await r.page.getByRole('button', { name: 'Send reply' }).click();
    await p.page.locator('.messages li.assistant', { hasText: canned }).waitFor();

    // 3. Nobody answers: after timeout_seconds (8) the draft goes out as the fallback.
    await sendChat(p.page, 'And what about food?');
    await p.page.locator('.messages li.assistant', { hasText: DRAFT }).waitFor({ timeout: 20_000 });

    expect((await assistantTexts(p.page)).length).toBe(3);
    const reviews = await reviewsOf(sessionId);
    expect(reviews.map((x) => [x.state, x.origin])).toEqual([
      ['sent', 'model_edited'],
      ['sent', 'wizard'],
      ['fallback', 'fallback'],
    ]);
    expect(reviews[0]!.draftText).toBe(`You said ${XSS}`);
    expect(reviews[0]!.editDistance).toBeGreaterThan(0);

    // The dataset carries the provenance, not the researcher.
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-woz-e2e-export-'));
    await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: 'woz-review', outDir: out, includePilot: false, includeIdentities: false });
    const rows = fs.readFileSync(path.join(out, 'messages.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const assistant = rows.filter((x) => x.role === 'assistant');
    expect(assistant.map((x) => x.origin)).toEqual(['model_edited', 'wizard', 'fallback']);
    expect(assistant.map((x) => x.edit_distance)).toEqual(reviews.map((x) => x.editDistance));
    expect(assistant[2]).toMatchObject({ model_draft: DRAFT, text: DRAFT, edit_distance: 0 });
    expect(fs.readFileSync(path.join(out, 'messages.jsonl'), 'utf8')).not.toContain(reviews[0]!.claimedBy!);
    fs.rmSync(out, { recursive: true, force: true });
    await r.context.close();
    await p.context.close();
  }, 120_000);

  it('wizard: the researcher writes every reply, with the model suggestion beside it; a second researcher sees it claimed', async () => {
    const r = await researcherPage('woz-wizard');
    const other = await researcherPage('woz-wizard');
    const p = await participantInWorkspace('woz-wizard', 'woz-e2e-wizard');
    const sessionId = await sessionOf('woz-wizard', 'woz-e2e-wizard');

    await sendChat(p.page, 'Help me plan a weekend.');
    await r.page.getByTestId('wizard-queue-item').first().click();
    await r.page.getByText('Claim', { exact: true }).click();
    await r.page.getByText('You hold this reply.').waitFor();
    await other.page.getByTestId('wizard-queue-item').filter({ hasText: 'Another researcher holds it' }).waitFor();
    await other.page.getByTestId('wizard-queue-item').first().click();
    await other.page.getByText('Another researcher holds this reply.').waitFor();
    expect(await other.page.getByRole('button', { name: 'Send reply' }).isDisabled()).toBe(true);

    // show_model_draft is true in the demo's wizard condition: the suggestion is shown, the editor starts empty.
    await r.page.getByTestId('wizard-draft').filter({ hasText: DRAFT }).waitFor({ timeout: 15_000 });
    expect(await r.page.getByLabel('Your reply').inputValue()).toBe('');
    await r.page.getByLabel('Your reply').fill('Which city are you thinking of?');
    await r.page.getByRole('button', { name: 'Send reply' }).click();
    await p.page.locator('.messages li.assistant', { hasText: 'Which city are you thinking of?' }).waitFor();
    await other.page.getByText('Nobody is waiting.').waitFor();

    await sendChat(p.page, 'Rome, relaxed pace.');
    await r.page.getByTestId('wizard-queue-item').first().click();
    await r.page.getByLabel('Your reply').fill('Rome it is: mornings free, one museum a day.');
    await r.page.getByLabel('Your reply').press('Control+Enter');
    await p.page.locator('.messages li.assistant', { hasText: 'Rome it is' }).waitFor();

    const reviews = await until('two sent reviews', async () => {
      const rows = await reviewsOf(sessionId);
      return rows.length === 2 && rows.every((x) => x.state === 'sent') ? rows : undefined;
    });
    expect(reviews.map((x) => x.origin)).toEqual(['wizard', 'wizard']);
    // Each suggestion is stored: whole, or what had streamed when the researcher answered first.
    for (const x of reviews) expect(x.draftText && DRAFT.startsWith(x.draftText) && x.draftText.length > 0, String(x.draftText)).toBe(true);
    expect(await t.server.store.messages.listForSession(sessionId)).toHaveLength(4);
    await r.context.close();
    await other.context.close();
    await p.context.close();
  }, 120_000);
});
