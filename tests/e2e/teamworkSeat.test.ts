/**
 * People in the same seat, in Debian Chromium at desktop width: a participant does the test arm of
 * info-flood-route in the ordinary browser chat against the real server (SQLite in a temp dir, the
 * example study studies/teamwork-seat.yaml with its offline judges). The brief and the dispatcher's first
 * line arrive after the first message; asking about the roads brings the flood warning; the route is
 * submitted in the form; and the session exported as a run passes, having seen the problem.
 *
 * Needs the built client (dist/client); built here if missing. Screenshots: /tmp/tandem-seat-*.png.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countsFromMessages } from '../../analysis/input/messagesFile';
import { startServer, type RunningServer } from '../../server/app';
import { loadConfig } from '../../server/services/config';
import { studyRuns } from '../../teamwork/seat/studyRuns';
import { launchBrowser, type LaunchedBrowser } from '../support/browser';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STUDY = 'teamwork-seat';

let server: RunningServer;
let launched: LaunchedBrowser;
let work: string;
let studiesDir: string;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist/client/index.html'))) execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'ignore' });
  work = mkdtempSync(path.join(tmpdir(), 'tandem-e2e-seat-'));
  studiesDir = path.join(work, 'studies');
  mkdirSync(studiesDir);
  // The example study with its test arm only, so the one participant sits opposite the pushing dispatcher.
  const study = readFileSync(path.join(ROOT, 'studies/teamwork-seat.yaml'), 'utf8').replace(/  - id: alone\n[^\n]*\n[^\n]*\n  - id: calm\n[^\n]*\n[^\n]*\n/, '');
  expect(study.match(/provider: teamwork/g)).toHaveLength(1);
  writeFileSync(path.join(studiesDir, `${STUDY}.yaml`), study);
  server = await startServer({ dataDir: path.join(work, 'data'), port: 0, studiesDir, surveysDir: path.join(ROOT, 'surveys'), env: {} });
  launched = await launchBrowser();
});

afterAll(async () => {
  await launched?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const completeReplies = (count: number) => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= count;

describe('people in the same seat in Chromium', () => {
  it('a participant plays the test arm in the browser chat at desktop width, and the session scores as a run', async () => {
    const context = await launched.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/study/${STUDY}?PROLIFIC_PID=pid-seat-e2e`);
    await page.getByRole('button', { name: 'I agree and want to take part' }).click();
    await page.getByRole('heading', { name: /Instructions: A route for the relief convoy/ }).waitFor();
    await page.getByRole('button', { name: 'Start the task' }).click();
    await page.getByRole('heading', { name: 'Chat with your team' }).waitFor();

    const box = page.getByLabel('Message the assistant');
    await box.fill('ready');
    await box.press('Enter');
    await page.waitForFunction(completeReplies, 1, { timeout: 30_000 });
    const first = page.locator('.messages li.assistant').first();
    expect(await first.textContent()).toContain('with Dana, the dispatcher');
    expect(await first.textContent()).toContain('Dana: Morning. Convoy is loaded and the drivers are ready.');
    expect(await page.locator('.messages').textContent()).not.toContain('flood');

    await box.fill('Before we choose: are there any road closures or alerts on route 9?');
    await box.press('Enter');
    await page.waitForFunction(completeReplies, 2, { timeout: 30_000 });
    expect(await page.locator('.messages li.assistant').nth(1).textContent()).toContain('there is a flood warning, the route 9 bridge at Kell closes at 14:00');
    // Desktop layout: the chat and the form side by side, nothing wider than the window.
    const chat = await page.locator('.messages').boundingBox();
    const field = await page.getByLabel('The route you choose').boundingBox();
    expect(field!.x).toBeGreaterThan(chat!.x + chat!.width - 1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    await page.screenshot({ path: '/tmp/tandem-seat-workspace.png' });

    await page.getByLabel('The route you choose').fill('route 12');
    await page.getByRole('button', { name: 'Submit my answer' }).click();
    await page.getByRole('button', { name: 'Yes, submit' }).click();
    await page.getByRole('heading', { name: 'A few questions about the task' }).waitFor();
    await page.locator('#item-outcome input[value="4"]').check();
    await page.locator('#item-teammate_helpful input[value="5"]').check();
    await page.getByRole('button', { name: 'Submit the survey' }).click();
    await page.getByRole('heading', { name: /Thank you/ }).waitFor();
    expect(await page.getByTestId('completion-code').textContent()).toBe('C1TWS2026');
    expect(errors).toEqual([]);
    await context.close();

    const study = loadConfig({ studiesDir, surveysDir: path.join(ROOT, 'surveys') }).studies.get(STUDY)!;
    const { runs, calls } = await studyRuns(server.store, study, {});
    expect(calls).toBe(0); // the offline judges' verdicts come from the store's cache
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ model: `people:${STUDY}`, arm: 'test', status: 'ok', passed: true, saw_problem: true, failure_mode: null, answer: 'route 12', submitted: true });
    const labels = runs[0]!.messages.filter((m) => m.labels).map((m) => m.labels!.final);
    expect(labels).toEqual(['asks_specific']);
    // The run's messages have the study trajectory's shape: the analysis reader counts the participant's turns as the user's.
    const run = runs[0]!;
    const sessionId = String(run.subject?.session_id);
    const file = path.join(work, 'messages.jsonl');
    writeFileSync(file, run.messages.map((m) => JSON.stringify(m)).join('\n'));
    const counts = countsFromMessages(file, new Map([[sessionId, 0]]), 1);
    expect(counts.user_turns[0]).toBe(2);
    expect(counts.agent_turns[0]).toBe(run.messages.filter((m) => m.role === 'assistant').length);
  }, 120_000);
});
