/**
 * People in the same seat, in Debian Chromium at desktop width: a participant does the test arm of
 * info-flood-route in the ordinary browser chat against the real server (SQLite in a temp dir, the
 * example study studies/teamwork-seat.yaml with its offline judges). The brief and the dispatcher's first
 * line arrive after the first message; asking about the roads brings the flood warning; the route is
 * submitted in the form; and the session exported as a run passes, having seen the problem.
 *
 * Needs the built client (dist/client); built here if missing. Screenshots: /tmp/tandem-seat-*.png.
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

/** Writes the example study with its test arm only into `<dataDir>/studies`, so the one participant sits opposite the pushing dispatcher. */
function writeTestArmStudy(dataDir: string): string {
  const studiesDir = studiesDirIn(dataDir);
  mkdirSync(studiesDir);
  const study = readFileSync(path.join(ROOT, 'studies/teamwork-seat.yaml'), 'utf8').replace(/  - id: alone\n[^\n]*\n[^\n]*\n  - id: calm\n[^\n]*\n[^\n]*\n/, '');
  expect(study.match(/provider: teamwork/g)).toHaveLength(1);
  writeFileSync(path.join(studiesDir, `${STUDY}.yaml`), study);
  return studiesDir;
}

beforeAll(async () => {
  t = await startServerAndBrowser({
    client: 'dist',
    startServer: () => startTempDataDirServer('tandem-e2e-seat-', (dataDir) => ({ port: 0, studiesDir: writeTestArmStudy(dataDir), surveysDir: path.join(ROOT, 'surveys'), env: {} })),
  });
});

afterAll(() => t?.close());

const completeReplies = (count: number) => document.querySelectorAll('.messages li.assistant[data-status="complete"]').length >= count;

describe('people in the same seat in Chromium', () => {
  it('a participant plays the test arm in the browser chat at desktop width, and the session scores as a run', async () => {
    const context = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${t.url}/study/${STUDY}?PROLIFIC_PID=pid-seat-e2e`);
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

    const study = loadTandemConfig({ studiesDir: studiesDirIn(t.dataDir), surveysDir: path.join(ROOT, 'surveys') }).studies.get(STUDY)!;
    const { runs, calls } = await studyRuns(t.server.store, study, {});
    expect(calls).toBe(0); // the offline judges' verdicts come from the store's cache
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ model: `people:${STUDY}`, arm: 'test', status: 'ok', passed: true, saw_problem: true, failure_mode: null, answer: 'route 12', submitted: true });
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
});
