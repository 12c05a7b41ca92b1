/**
 * End to end in Debian Chromium: a participant completes the visualization study against the real
 * server (real SQLite file in a temp dir, real socket.io), the assistant pointed at the local fake
 * OpenAI server so the real `openai` client streams replies. Then the database is checked: every
 * event in order, nothing twice. Also: markup in chat stays inert text, decline, MTurk preview, and
 * reopening the link with the same platform id resumes the same session.
 *
 * Needs the built client (dist/client): `npx vite build` (npm test builds first; built here if missing).
 * Screenshots of each step go to /tmp/tandem-participant-*.png.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SOCKETS_PER_SESSION } from '../../server/socket/sessionBudget';
import { startServerAndBrowser, startTempDataDirServer, type ServerAndBrowser } from '../support/serverAndBrowser';
import { plotPng } from '../support/png';
import { cutStream, lastUserText, reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SHOTS = '/tmp';
const XSS_TEXT = 'Is this safe? <img src=x onerror="window.__xss=1;alert(1)"> and <script>window.__xss=2</script> done';

let fake: FakeOpenAI;
let t: ServerAndBrowser;

beforeAll(async () => {
  // Replies stream at a readable pace so the test can see them arrive token by token.
  fake = await startFakeOpenAI({
    tokensPerSecond: 40,
    responder: (request) => {
      const text = lastUserText(request);
      if (text.startsWith('Is this safe?')) return reply(`You wrote: ${text}`);
      if (text.includes('slow answer')) return reply(`Slowly: ${'step by step, '.repeat(60)}`, { tokensPerSecond: 8 });
      if (text.includes('long answer'))
        return reply(`Here is a longer answer. ${'Exam scores rise with hours studied. '.repeat(12)}\n\n\`\`\`python\nprint("done")\n\`\`\``, { tokensPerSecond: 25 });
      return reply('Good question. Try a **scatter plot** of `hours_studied` against `exam_score`:\n\n```python\nimport pandas as pd\ndf = pd.read_csv("study_habits.csv")\ndf.plot.scatter(x="hours_studied", y="exam_score")\n```');
    },
  });
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () =>
      startTempDataDirServer('tandem-e2e-participant-', {
        port: 0,
        studiesDir: path.join(ROOT, 'studies'),
        surveysDir: path.join(ROOT, 'surveys'),
        openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 10 },
      }),
  });
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

async function newPage(): Promise<{ context: BrowserContext; page: Page; dialogs: string[]; errors: string[]; requested: string[] }> {
  const context = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  // Every URL the page requests: the participant token must never be in one (history, proxy logs).
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  return { context, page, dialogs, errors, requested };
}

/** Requested URLs that carry a token parameter or the stored participant token itself. */
async function urlsWithToken(page: Page, requested: string[]): Promise<string[]> {
  const stored = await page.evaluate(() => window.localStorage.getItem('tandem:session:visualization'));
  const token = stored ? (JSON.parse(stored) as { token: string }).token : null;
  return requested.filter((url) => /[?&]token=/.test(url) || (token !== null && (url.includes(token) || url.includes(encodeURIComponent(token)))));
}

/** Full-page shots, except the workspace: its chat is sticky, so a viewport shot shows what the participant sees. */
const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: `${SHOTS}/tandem-participant-${name}.png`, fullPage });

/** The stored trajectory, read through the running server's store (rows shaped as the checks below read them). */
const stored = {
  sessionIdOf: async (platformUserId: string) => (await t.server.store.withdrawals.findSessionIds('visualization', platformUserId))[0]!,
  events: async (sessionId: string) =>
    (await t.server.store.events.listForSession(sessionId)).map((e) => ({ seq: e.seq, type: e.type, payload: JSON.stringify(e.payload), server_ts: e.serverTs, client_ts: e.clientTs })),
  messages: async (sessionId: string, role: 'user' | 'assistant') => (await t.server.store.messages.listForSession(sessionId)).filter((m) => m.role === role),
};

/** Form controls without an accessible name (label, aria-label or visible text). */
function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('input, textarea, select, button')]
      .filter((el) => {
        const labels = (el as HTMLInputElement).labels;
        return !(labels && labels.length > 0) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby') && !el.textContent?.trim();
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

/** Presses Tab until the focused element's text matches, proving it is reachable by keyboard. */
async function tabTo(page: Page, text: string, maxTabs = 15) {
  for (let i = 0; i < maxTabs; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.textContent?.trim())) === text) return;
  }
  throw new Error(`"${text}" was not reached with ${maxTabs} Tab presses`);
}

async function sendChat(page: Page, text: string) {
  const box = page.getByLabel('Message the assistant');
  await box.fill(text);
  await box.press('Enter');
}

/** Waits until `count` assistant replies are stored (not streaming) in the message list. */
async function waitForReplies(page: Page, count: number) {
  await page.waitForFunction(
    (n) => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= n,
    count,
    { timeout: 30_000 },
  );
}

describe('participant flow in Chromium', () => {
  it('completes the visualization study with a reload mid-chat, and the database holds every event once, in order', async () => {
    const { context, page, dialogs, errors, requested } = await newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const studyUrl = `${t.url}/study/visualization?PROLIFIC_PID=pid-e2e-1&STUDY_ID=prolific-study-1&SESSION_ID=prolific-session-1`;
    // The study's redirect goes to Prolific; answer it locally so we can see that it happened.
    await page.route('https://app.prolific.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Prolific</h1>' }));

    // Consent
    await page.goto(studyUrl);
    await page.getByRole('heading', { name: 'Consent to take part' }).waitFor();
    expect(await page.getByText('Consent form version 2026-11-1').count()).toBe(1);
    await shot(page, '1-consent');
    await page.getByRole('button', { name: 'I agree and want to take part' }).click();

    // Instructions
    await page.getByRole('heading', { name: /Instructions: What drives exam scores/ }).waitFor();
    // The material downloads through the token header into a blob: URL, under its own name
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download study_habits.csv' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('study_habits.csv');
    expect(download.url()).toMatch(/^blob:/);
    // saveAs, not path(): the run's shared Chromium is a remote browser, which hands a download over as a stream.
    const saved = path.join(mkdtempSync(path.join(tmpdir(), 'tandem-download-')), download.suggestedFilename());
    await download.saveAs(saved);
    expect(readFileSync(saved, 'utf8').split('\n')[0]).toContain('study_hours');
    rmSync(path.dirname(saved), { recursive: true, force: true });
    await shot(page, '2-instructions');
    await page.getByRole('button', { name: 'Start the task' }).click();

    // Workspace: first exchange, watching the reply stream in
    await page.getByRole('heading', { name: 'Chat with' }).waitFor();
    await sendChat(page, 'Which columns should I compare?');
    await page.locator('.messages li[data-status="streaming"] .markdown').first().waitFor({ timeout: 15_000 });
    await waitForReplies(page, 1);
    expect(await page.locator('.messages li.assistant pre code').count()).toBeGreaterThan(0);

    // Markup typed by the participant and echoed by the model stays inert text
    await sendChat(page, XSS_TEXT);
    await waitForReplies(page, 2);
    expect(await page.locator('.messages img, .messages script').count()).toBe(0);
    expect(await page.locator('.messages li.user', { hasText: '<img src=x onerror=' }).count()).toBe(1);
    expect(await page.locator('.messages li.assistant', { hasText: '<script>window.__xss=2</script>' }).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    // Draft fields autosave
    await page.getByLabel('Your hypothesis').fill('Students who study more hours score higher on the exam.');
    await page.getByLabel('Analysis code').fill('import pandas as pd\ndf = pd.read_csv("study_habits.csv")\nprint(df.corr(numeric_only=True))');
    // A paste in the code field is logged as integrity telemetry (length only)
    await page.getByLabel('Analysis code').evaluate((el) => {
      const data = new DataTransfer();
      data.setData('text/plain', 'x = 1');
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await page.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, '3-workspace-chat', false);

    // Reload in the middle of a streaming reply: same step, history, draft, and the reply finishes
    await sendChat(page, 'Please give me a long answer about the trend.');
    await page.locator('.messages li[data-status="streaming"] .markdown').first().waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: 'Stop the reply' }).count()).toBe(1);
    await shot(page, '3b-streaming', false);
    await page.reload();
    await page.getByRole('heading', { name: 'Chat with' }).waitFor();
    expect(await page.locator('.messages li.user').count()).toBe(3);
    expect(await page.getByLabel('Your hypothesis').inputValue()).toBe('Students who study more hours score higher on the exam.');
    await waitForReplies(page, 3);
    expect(await page.locator('.messages li.assistant').count()).toBe(3);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, '4-workspace-after-reload', false);

    // Upload a plot and finish the answer
    await page.getByLabel('Your plot (image)').setInputFiles({ name: 'plot.png', mimeType: 'image/png', buffer: plotPng(120, 80) });
    const preview = page.getByRole('img', { name: /Your uploaded image/ });
    await preview.waitFor();
    expect(await preview.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(120);
    expect(await preview.getAttribute('src')).toMatch(/^blob:/); // fetched with the header, not ?token=
    expect(await urlsWithToken(page, requested)).toEqual([]);
    await page.getByLabel('Interpretation').fill('The scatter plot shows a clear positive trend, which supports the hypothesis.');
    await page.locator('[data-save="saved"]').waitFor({ timeout: 10_000 });
    expect(await unlabelledControls(page)).toEqual([]);
    await shot(page, '5-workspace-filled', false);

    // Submit with confirmation
    await page.getByRole('button', { name: 'Submit my answer' }).click();
    await page.getByRole('dialog', { name: 'Submit your answer?' }).waitFor();
    await shot(page, '6-confirm', false);
    await page.getByRole('button', { name: 'Yes, submit' }).click();

    // Survey: required checks first, then answers (one item by keyboard)
    await page.getByRole('heading', { name: 'A few questions about the task' }).waitFor();
    await page.getByRole('button', { name: 'Submit the survey' }).click();
    await page.getByText(/Please answer all required questions/).waitFor();
    await shot(page, '7-survey-required');
    await page.locator('#item-confidence input[value="4"]').check();
    await page.locator('#item-ai_usefulness input[value="1"]').focus();
    await page.keyboard.press('ArrowRight'); // radio groups move with arrow keys
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#item-ai_usefulness input[value="3"]').isChecked()).toBe(true);
    await page.locator('#item-speed input[value="5"]').check();
    await page.locator('#item-attention input[value="4"]').check();
    await page.locator('#item-satisfaction input[value="4"]').check();
    await page.getByLabel(/Anything else/).fill('It was helpful.');
    expect(await page.getByText(/Please answer all required questions/).count()).toBe(0);
    expect(await unlabelledControls(page)).toEqual([]);
    await shot(page, '8-survey-filled');
    await page.getByRole('button', { name: 'Submit the survey' }).click();

    // Completion: code, copy button, visible countdown, then the redirect
    await page.getByRole('heading', { name: /Thank you/ }).waitFor();
    expect(await page.getByTestId('completion-code').textContent()).toBe('C1VIZ2026');
    await page.getByRole('button', { name: 'Copy the completion code' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    await page.getByText(/Taking you back in \d+ s/).waitFor();
    await shot(page, '9-complete');
    await page.waitForURL(/app\.prolific\.com\/submissions\/complete\?cc=C1VIZ2026/, { timeout: 20_000 });

    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    // The stored trajectory
    {
      const sessions = await t.server.store.sessions.listByStudy('visualization');
      expect(sessions).toHaveLength(1);
      const session = sessions[0]!;
      expect(session.status).toBe('completed');
      const events = await stored.events(session.id);
      // seq strictly increasing from 1 with no gaps, in insertion order; server time never goes back
      events.forEach((e, i) => expect(e.seq).toBe(i + 1));
      for (let i = 1; i < events.length; i++) expect(events[i]!.server_ts).toBeGreaterThanOrEqual(events[i - 1]!.server_ts);

      // each participant message stored exactly once, by clientId, in the order sent
      const userMessages = events.filter((e) => e.type === 'message.user').map((e) => JSON.parse(e.payload) as { clientId: string; text: string });
      expect(userMessages.map((m) => m.text)).toEqual([
        'Which columns should I compare?',
        XSS_TEXT,
        'Please give me a long answer about the trend.',
      ]);
      expect(new Set(userMessages.map((m) => m.clientId)).size).toBe(3);
      const finished = events.filter((e) => e.type === 'reply.finished').map((e) => JSON.parse(e.payload) as { status: string; replyTo: string });
      expect(finished.map((r) => r.status)).toEqual(['complete', 'complete', 'complete']);
      expect(new Set(finished.map((r) => r.replyTo)).size).toBe(3);

      // the expected milestones, in this order (other events such as drafts/telemetry may sit between)
      const milestones = [
        'session.created',
        'consent.accepted',
        'step.changed',
        'step.changed',
        'message.user',
        'reply.started',
        'reply.finished',
        'message.user',
        'reply.started',
        'reply.finished',
        'artifact.draft_saved',
        'message.user',
        'reply.started',
        'reply.finished',
        'upload.stored',
        'artifact.submitted',
        'step.changed',
        'survey.submitted',
        'session.completed',
      ];
      const types = events.map((e) => e.type);
      let at = 0;
      for (const type of types) if (at < milestones.length && type === milestones[at]) at++;
      expect(milestones.slice(at), `milestones missing from ${types.join(', ')}`).toEqual([]);
      for (const once of ['session.created', 'consent.accepted', 'upload.stored', 'artifact.submitted', 'survey.submitted', 'session.completed'])
        expect(types.filter((t) => t === once), once).toHaveLength(1);
      // the paste went out in an integrity-telemetry batch (length and field only)
      const pastes = events.filter((e) => e.type === 'telemetry.batch').flatMap((e) => (JSON.parse(e.payload) as { pastes: unknown[] }).pastes);
      expect(pastes).toContainEqual(expect.objectContaining({ chars: 5, target: 'code' }));

      const stepChanges = events.filter((e) => e.type === 'step.changed').map((e) => JSON.parse(e.payload) as { from: string; to: string });
      expect(stepChanges.map((s) => s.to)).toEqual(['instructions', 'workspace', 'survey', 'complete']);

      // the submitted artifact holds all four fields, the image as the stored upload id
      const artifact = await t.server.store.artifacts.listVersions(session.id);
      expect(artifact).toHaveLength(1);
      const fields = artifact[0]!.fields;
      const [upload] = await t.server.store.uploads.listForSession(session.id);
      expect(fields.plot).toBe(upload!.id);
      expect(upload!.contentType).toBe('image/png');
      expect(fields.interpretation).toMatch(/positive trend/);

      // survey answers as given (ai_usefulness set by keyboard)
      const survey = events.find((e) => e.type === 'survey.submitted')!;
      expect(JSON.parse(survey.payload)).toMatchObject({
        answers: { confidence: 4, ai_usefulness: 3, speed: 5, attention: 4, satisfaction: 4, comments: 'It was helpful.' },
        attentionCheckPassed: true,
      });

      // identities stay out of the trajectory
      expect(events.some((e) => e.payload.includes('pid-e2e-1'))).toBe(false);
      const identity = await t.server.store.identities.get(session.id);
      expect(identity?.platformUserId).toBe('pid-e2e-1');
    }
  }, 180_000);

  it('chat controls: Shift+Enter adds a line, the length limit blocks sending, Stop ends a reply, a cut-off reply offers Retry', async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`${t.url}/study/visualization?participant_label=chat-controls`);
    await page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await page.getByRole('button', { name: 'Start the task' }).click();
    const box = page.getByLabel('Message the assistant');
    await box.waitFor();

    // Shift+Enter adds a line; Enter sends the two-line message
    await box.focus();
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    expect(await box.inputValue()).toBe('first line\nsecond line');
    expect(await page.locator('.messages li.user').count()).toBe(0);
    await page.keyboard.press('Enter');
    await waitForReplies(page, 1);
    expect(await page.locator('.messages li.user .text').first().innerText()).toBe('first line\nsecond line');

    // Over the study's limit (4000): a visible counter and alert, Send disabled, Enter does nothing
    await box.fill('x'.repeat(4001));
    await page.getByText('4001 / 4000 characters').waitFor();
    await page.getByRole('alert').filter({ hasText: 'Too long' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await box.press('Enter');
    expect(await page.locator('.messages li.user').count()).toBe(1);

    // Stop while streaming: the reply is kept as stopped and the chat is usable again
    await sendChat(page, 'Please give me a slow answer.');
    await page.locator('.messages li[data-status="streaming"] .markdown').first().waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Stop the reply' }).click();
    await page.locator('.messages li.assistant[data-status="stopped"]').waitFor({ timeout: 15_000 });
    await page.getByText('You stopped this reply.').waitFor();

    // A stream that dies mid-reply: a clear message and Retry, which brings a full reply
    fake.script(cutStream('This reply will break off somewhere in the', 3));
    await sendChat(page, 'What does the sleep column mean?');
    await page.getByRole('button', { name: 'Retry' }).waitFor({ timeout: 15_000 });
    await page.getByText('This reply was cut off.').waitFor();
    await shot(page, '12-reply-failed', false);
    await page.getByRole('button', { name: 'Retry' }).click();
    await waitForReplies(page, 2);
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();

    {
      const sessionId = await stored.sessionIdOf('chat-controls');
      const replies = await stored.messages(sessionId, 'assistant');
      expect(replies.map((r) => r.status)).toEqual(['complete', 'stopped', 'interrupted', 'complete']);
      expect(replies[2]!.interrupted).toBe(true);
      const userTexts = (await stored.messages(sessionId, 'user')).map((r) => r.text);
      expect(userTexts).toEqual(['first line\nsecond line', 'Please give me a slow answer.', 'What does the sleep column mean?']);
    }
  });

  it('unacknowledged messages are resent after a lost connection and after a reload, and each is stored once', async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`${t.url}/study/visualization?participant_label=resend-check`);
    await page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await page.getByRole('button', { name: 'Start the task' }).click();
    await sendChat(page, 'hello one');
    await waitForReplies(page, 1);

    // The server drops the connection and the browser is offline: the message waits as "Sending…"
    await context.setOffline(true);
    t.server.io.disconnectSockets(true);
    await page.getByText('Connection lost — reconnecting…').waitFor();
    await sendChat(page, 'sent while offline');
    await page.locator('.messages li.user[data-status="pending"]').waitFor();
    await shot(page, '13-offline-pending', false);
    await context.setOffline(false);
    await waitForReplies(page, 2);
    expect(await page.locator('.messages li.user[data-status="pending"]').count()).toBe(0);

    // A page that died before its ack: one message already stored (same clientId) and one not yet
    const sessionId = await stored.sessionIdOf('resend-check');
    const firstRow = (await stored.messages(sessionId, 'user')).find((m) => m.text === 'hello one')!;
    const first = { client_id: firstRow.clientId!, created_at: firstRow.createdAt };
    const queuedId = 'queued-before-reload-0001';
    await page.evaluate(
      ({ first, queuedId }) => {
        window.localStorage.setItem(
          'tandem:outbox:visualization',
          JSON.stringify([
            { clientId: first.client_id, text: 'hello one', clientTs: first.created_at },
            { clientId: queuedId, text: 'queued before reload', clientTs: Date.now() },
          ]),
        );
      },
      { first, queuedId },
    );
    await page.reload();
    await waitForReplies(page, 3);
    expect(await page.locator('.messages li.user').allInnerTexts()).toEqual([
      expect.stringContaining('hello one'),
      expect.stringContaining('sent while offline'),
      expect.stringContaining('queued before reload'),
    ]);
    expect(await page.evaluate(() => window.localStorage.getItem('tandem:outbox:visualization'))).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
    {
      const rows = await stored.messages(sessionId, 'user');
      expect(rows.map((r) => r.text)).toEqual(['hello one', 'sent while offline', 'queued before reload']);
      expect(rows[0]!.clientId).toBe(first.client_id);
      expect(rows[2]!.clientId).toBe(queuedId);
      const userEvents = (await stored.events(sessionId)).filter((e) => e.type === 'message.user');
      expect(userEvents).toHaveLength(3);
    }
  });

  it('when the server refuses the socket (too many tabs), the page says why, retries by itself and carries on', async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`${t.url}/study/visualization?participant_label=refused-tabs`);
    await page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await page.getByRole('heading', { name: /Instructions/ }).waitFor();
    const stored = await page.evaluate(() => window.localStorage.getItem('tandem:session:visualization'));
    const token = (JSON.parse(stored!) as { token: string }).token;

    // Other "tabs" of the same session fill the server's socket budget (the page holds one place) ...
    const openTab = () =>
      new Promise<Socket>((resolve, reject) => {
        const s = connect(t.url, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
        s.once('connect', () => resolve(s));
        s.once('connect_error', reject);
      });
    const tabs: Socket[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_SESSION - 1; i++) tabs.push(await openTab());
    // ... the server drops the page's socket and another tab takes its place before the page is back.
    const tabIds = new Set(tabs.map((s) => s.id));
    for (const s of await t.server.io.fetchSockets()) {
      if ((s.handshake.auth as { token?: string }).token === token && !tabIds.has(s.id)) s.disconnect(true);
    }
    tabs.push(await openTab());

    const status = page.locator('.topbar span[role="status"]');
    await status.filter({ hasText: 'open in too many tabs' }).waitFor({ timeout: 15_000 });
    await shot(page, '15-refused-too-many-tabs', false);
    // A tab closes: the page gets back in on its next retry, without a reload, and the session works.
    for (const s of tabs.splice(0, 3)) s.close();
    await page.waitForFunction(() => document.querySelector('.topbar span[role="status"]')?.textContent === '', undefined, { timeout: 20_000 });
    await page.getByRole('button', { name: 'Start the task' }).click();
    await page.getByRole('heading', { name: 'Chat with' }).waitFor();
    expect(errors).toEqual([]);
    for (const s of tabs) s.close();
    await context.close();
  });

  it('reopening the link with the same platform id in a fresh browser resumes the same session', async () => {
    const { context, page } = await newPage();
    await page.route('https://app.prolific.com/**', (route) => route.fulfill({ contentType: 'text/html', body: 'ok' }));
    await page.goto(`${t.url}/study/visualization?PROLIFIC_PID=pid-e2e-1&STUDY_ID=prolific-study-1&SESSION_ID=prolific-session-1`);
    await page.getByRole('heading', { name: /Thank you/ }).waitFor();
    expect(await page.getByTestId('completion-code').textContent()).toBe('C1VIZ2026');
    await page.getByRole('button', { name: 'Stay on this page' }).click();
    await context.close();
    expect(await t.server.store.identities.countByPlatformUserId('pid-e2e-1')).toBe(1);
  });

  it('declining consent shows the decline code', async () => {
    const { context, page } = await newPage();
    await page.route('https://app.prolific.com/**', (route) => route.fulfill({ contentType: 'text/html', body: 'ok' }));
    await page.goto(`${t.url}/study/visualization?PROLIFIC_PID=pid-e2e-decline`);
    await page.getByRole('heading', { name: 'Consent to take part' }).waitFor();
    await tabTo(page, 'I do not agree');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'You chose not to take part' }).waitFor();
    expect(await page.getByTestId('completion-code').textContent()).toBe('D0VIZ2026');
    await page.getByRole('button', { name: 'Stay on this page' }).click();
    await shot(page, '10-declined');
    await context.close();
  });

  it('when the time limit passes, the page follows to the timed-out code', async () => {
    // A second server whose clock the test moves forward (the offline assistant answers).
    let skewMs = 0;
    const timed = await startTempDataDirServer('tandem-e2e-timeout-', { port: 0, now: () => Date.now() + skewMs, env: {}, offlineReplyDelayMs: 0 });
    try {
      const { context, page } = await newPage();
      await page.route('https://app.prolific.com/**', (route) => route.fulfill({ contentType: 'text/html', body: 'ok' }));
      await page.goto(`${timed.url}/study/visualization?participant_label=slowpoke`);
      await page.getByRole('button', { name: 'I agree and want to take part' }).click();
      await page.getByRole('button', { name: 'Start the task' }).click();
      await page.getByText('Time left: 30 min').waitFor();
      skewMs = 31 * 60_000;
      await page.reload(); // the reconnect re-arms the server's timer, which is now overdue
      await page.getByRole('heading', { name: 'The time for this study is up' }).waitFor({ timeout: 15_000 });
      expect(await page.getByTestId('completion-code').textContent()).toBe('T0VIZ2026');
      await page.getByRole('button', { name: 'Stay on this page' }).click();
      await shot(page, '14-timed-out');
      await context.close();
    } finally {
      await timed.close();
    }
  });

  it('an MTurk preview shows the study without creating a session', async () => {
    const count = () => t.server.store.sessions.count();
    {
      const before = await count();
      const { context, page } = await newPage();
      await page.goto(`${t.url}/study/visualization?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=h1`);
      await page.getByText('This is a preview.').waitFor();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Exploring study habits with an AI assistant');
      await shot(page, '11-mturk-preview');
      await context.close();
      expect(await count()).toBe(before);
    }
  });
});
