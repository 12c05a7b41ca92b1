/**
 * People in the same seat, in Debian Chromium: a participant does the test arm of info-flood-route at
 * desktop width in the ordinary browser chat against the real server (SQLite in a temp dir, the example
 * study studies/teamwork-seat.yaml with its offline judges). The brief arrives after the first message and
 * is shown as the task's brief, not as a chat bubble; the dispatcher speaks as herself (name and avatar),
 * under a marker of the round that says what is expected; asking about the roads brings the flood warning;
 * the route is submitted in the form; and the session exported as a run passes, having seen the problem.
 * A second participant, in a second browser context on a 390 px phone at the same time, sits in the alone
 * arm: nothing there speaks of a team.
 *
 * Needs the built client (dist/client); built here if missing. Screenshots: test-results/seat-*.png.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countsFromMessages } from '../../research/analysis/input/messagesFile';
import { loadTandemConfig } from '../../wiring/startTandem';
import { studyRuns } from '../../research/teamwork/seat/studyRuns';
import { startServerAndBrowser, startTempDataDirServer, type ServerAndBrowser } from '../support/serverAndBrowser';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STUDY = 'teamwork-seat';

let t: ServerAndBrowser;
const studiesDirIn = (dataDir: string) => path.join(dataDir, 'studies');

const ALONE_STUDY = 'seat-alone';
const SHOTS = path.join(ROOT, 'test-results');

/**
 * Writes the example study with its test arm only into `<dataDir>/studies`, so the one participant sits opposite the
 * pushing dispatcher, and beside it the same study with its alone arm only (`seat-alone`).
 */
function writeTestArmStudy(dataDir: string): string {
  const studiesDir = studiesDirIn(dataDir);
  mkdirSync(studiesDir);
  const source = readFileSync(path.join(ROOT, 'studies/teamwork-seat.yaml'), 'utf8');
  const study = source.replace(/  - id: alone\n[^\n]*\n[^\n]*\n  - id: calm\n[^\n]*\n[^\n]*\n/, '');
  expect(study.match(/provider: teamwork/g)).toHaveLength(1);
  writeFileSync(path.join(studiesDir, `${STUDY}.yaml`), study);
  const alone = source.replace(/  - id: calm\n[^\n]*\n[^\n]*\n  - id: test\n[^\n]*\n[^\n]*\n/, '');
  expect(alone.match(/arm: alone/g)).toHaveLength(1);
  writeFileSync(path.join(studiesDir, `${ALONE_STUDY}.yaml`), alone);
  return studiesDir;
}

beforeAll(async () => {
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () => startTempDataDirServer('tandem-e2e-seat-', (dataDir) => ({ port: 0, studiesDir: writeTestArmStudy(dataDir), surveysDir: path.join(ROOT, 'surveys'), env: {} })),
  });
});

afterAll(() => t?.close());

/** Each of the team's replies carries one round marker (or the after-the-last-round one). */
const completeReplies = (count: number) => document.querySelectorAll('.messages [data-testid="seat-round"]').length >= count;

describe('people in the same seat in Chromium', () => {
  it('a participant plays the test arm at desktop width (the brief as instructions, each speaker by name, the round), and the session scores as a run', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const context = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${t.url}/study/${STUDY}?PROLIFIC_PID=pid-seat-e2e`);
    await page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await page.getByRole('heading', { name: /Instructions: A route for the relief convoy/ }).waitFor();
    await page.getByRole('button', { name: 'Start the task' }).click();
    await page.getByRole('heading', { name: 'Chat with your team' }).waitFor();
    expect(await page.locator('.chat-empty').textContent()).toContain('Send a first message (for example “ready”) to start');

    const box = page.getByLabel('Message your team');
    await box.fill('ready');
    await box.press('Enter');
    await page.waitForFunction(completeReplies, 1, { timeout: 30_000 });
    // The brief is the task's brief beside the form, not a chat bubble; the meta text of model prompts is gone.
    const brief = page.getByTestId('seat-brief');
    await brief.getByRole('heading', { name: 'Your brief' }).waitFor();
    expect(await brief.textContent()).toContain('with Dana, the dispatcher');
    expect(await page.locator('.messages').textContent()).not.toContain('with Dana, the dispatcher');
    expect(await page.locator('body').textContent()).not.toContain('Name: message');
    // The round, and what is expected now, as a marker; Dana as her own speaker, with an avatar.
    const round = page.getByTestId('seat-round').last();
    expect(await round.textContent()).toBe('Round 1 of 4 Your turn: write to your team, or submit your answer in the form when you have decided.');
    const dana = page.locator('[data-testid="seat-post"][data-speaker="Dana"]');
    await expect.poll(() => dana.count()).toBe(1);
    expect(await dana.locator('.who').textContent()).toBe('Dana');
    expect(await dana.locator('.seat-avatar').textContent()).toBe('DA');
    expect(await dana.locator('.seat-avatar').isVisible()).toBe(true);
    expect(await dana.locator('.markdown').textContent()).toBe('Morning. Convoy is loaded and the drivers are ready.');
    expect(await page.locator('.messages').textContent()).not.toContain('flood');

    await box.fill('Before we choose: are there any road closures or alerts on route 9?');
    await box.press('Enter');
    await page.waitForFunction(completeReplies, 2, { timeout: 30_000 });
    await expect.poll(() => dana.count()).toBe(2);
    expect(await dana.nth(1).textContent()).toContain('there is a flood warning, the route 9 bridge at Kell closes at 14:00');
    expect(await page.getByTestId('seat-round').last().textContent()).toContain('Round 2 of 4');
    // Desktop layout: the chat and the form side by side, nothing wider than the window.
    const chat = await page.locator('.messages').boundingBox();
    const field = await page.getByLabel('The route you choose').boundingBox();
    expect(field!.x).toBeGreaterThan(chat!.x + chat!.width - 1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    await page.screenshot({ path: path.join(SHOTS, 'seat-team-1280.png') });

    await page.getByLabel('The route you choose').fill('route 12');
    await page.getByRole('button', { name: 'Submit my answer' }).click();
    await page.getByRole('button', { name: 'Yes, submit' }).click();
    await page.getByRole('heading', { name: 'A few questions about the task' }).waitFor();
    await page.locator('#item-outcome input[value="4"]').check();
    await page.locator('#item-teammate_helpful input[value="5"]').check();
    expect(await page.locator('#item-brief_enough').count()).toBe(0);
    await page.getByRole('button', { name: 'Submit the survey' }).click();
    await page.getByRole('heading', { name: /Thank you/ }).waitFor();
    expect(await page.getByTestId('completion-code').textContent()).toBe('C1TWS2026');
    expect(errors).toEqual([]);
    await context.close();

    const study = loadTandemConfig({ studiesDir: studiesDirIn(t.dataDir), surveysDir: path.join(ROOT, 'surveys') }).studies.get(STUDY)!;
    const { runs, calls } = await studyRuns(t.server.store, study, {});
    expect(calls).toBe(0); // the offline judges' verdicts come from the store's cache
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ model: `people:${STUDY}`, arm: 'test', status: 'ok', passed: true, saw_problem: true, failure_mode: null, answer: 'route 12', submitted: true });
    expect((runs[0]!.events ?? []).filter((e) => e.type === 'replay_mismatch')).toEqual([]);
    const labels = runs[0]!.messages.filter((m) => m.labels).map((m) => m.labels!.final);
    expect(labels).toEqual(['asks_specific']);
    // The run's messages have the study trajectory's shape: the analysis reader counts the participant's turns as the user's.
    const run = runs[0]!;
    const sessionId = String(run.subject?.session_id);
    const file = path.join(t.dataDir, 'messages.jsonl');
    writeFileSync(file, run.messages.map((m) => JSON.stringify(m)).join('\n'));
    const counts = countsFromMessages(file, new Map([[sessionId, 0]]), 1);
    expect(counts.user_turns[0]).toBe(2);
    expect(counts.agent_turns[0]).toBe(run.messages.filter((m) => m.role === 'assistant').length);
  }, 120_000);

  it('at the same time, a second person on a 390 px phone sits in the alone arm: no team in the wording, the brief above the instructions', async () => {
    const team = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const phone = await t.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    const start = async (context: typeof team, study: string, pid: string) => {
      const page = await context.newPage();
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${t.url}/study/${study}?PROLIFIC_PID=${pid}`);
      await page.getByRole('button', { name: 'I agree and want to take part' }).click();
      await page.getByRole('button', { name: 'Start the task' }).click();
      return page;
    };
    const [teamPage, alonePage] = await Promise.all([start(team, STUDY, 'pid-seat-team-2'), start(phone, ALONE_STUDY, 'pid-seat-alone')]);
    await alonePage.getByRole('heading', { name: 'Your task (you work alone)' }).waitFor();
    expect(await alonePage.locator('.chat-empty').textContent()).toBe(
      'Send a first message (for example “ready”) to receive your brief. You work on your own in this task: nobody reads or answers your messages. Press Send to send.',
    );
    const box = alonePage.getByLabel('Your message (nobody else takes part)');
    expect(await box.getAttribute('placeholder')).toBe('Type a message, then press Send.');
    await box.fill('ready');
    await alonePage.getByRole('button', { name: 'Send', exact: true }).click();
    await alonePage.waitForFunction(completeReplies, 1, { timeout: 30_000 });
    expect(await alonePage.getByTestId('seat-brief').textContent()).toContain('The regional dispatch office has issued a flood warning');
    expect(await alonePage.getByTestId('seat-brief').textContent()).toContain('You are working on your own');
    expect(await alonePage.getByTestId('seat-round').textContent()).toBe(
      'Round 1 of 4 You work on your own in this task: nobody reads or answers these messages. Submit your answer in the form when you have decided.',
    );
    expect(await alonePage.getByTestId('seat-post').count()).toBe(0);
    expect(await alonePage.locator('body').textContent()).not.toMatch(/your team|Chat with/);
    expect(await alonePage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The brief is on screen, within the phone's width.
    const briefBox = await alonePage.getByTestId('seat-brief').boundingBox();
    expect(briefBox!.x).toBeGreaterThanOrEqual(0);
    expect(briefBox!.x + briefBox!.width).toBeLessThanOrEqual(390);
    await alonePage.getByTestId('seat-brief').scrollIntoViewIfNeeded();
    await alonePage.screenshot({ path: path.join(SHOTS, 'seat-alone-390.png') });
    await alonePage.getByRole('log', { name: 'Conversation' }).scrollIntoViewIfNeeded();
    await alonePage.screenshot({ path: path.join(SHOTS, 'seat-alone-390-chat.png') });

    // The survey of the alone arm asks about the brief, not about a teammate.
    await alonePage.getByLabel('The route you choose').fill('route 12');
    await alonePage.getByRole('button', { name: 'Submit my answer' }).click();
    await alonePage.getByRole('button', { name: 'Yes, submit' }).click();
    await alonePage.getByRole('heading', { name: 'A few questions about the task' }).waitFor();
    expect(await alonePage.locator('main').textContent()).toContain('The brief gave me the information I needed.');
    expect(await alonePage.locator('main').textContent()).not.toMatch(/teammate/i);
    expect(await alonePage.locator('#item-teammate_helpful').count()).toBe(0);
    await alonePage.screenshot({ path: path.join(SHOTS, 'seat-alone-survey-390.png') });
    await alonePage.locator('#item-outcome input[value="4"]').check();
    await alonePage.locator('#item-brief_enough input[value="5"]').check();
    await alonePage.getByRole('button', { name: 'Submit the survey' }).click();
    await alonePage.getByRole('heading', { name: /Thank you/ }).waitFor();

    // Meanwhile the team participant's chat speaks of the team, in its own browser.
    await teamPage.getByRole('heading', { name: 'Chat with your team' }).waitFor();
    expect(await teamPage.getByLabel('Message your team').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await Promise.all([team.close(), phone.close()]);
  }, 120_000);
});
