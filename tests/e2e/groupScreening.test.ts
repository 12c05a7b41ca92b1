/**
 * The screening question of a group condition in Debian Chromium: three browser contexts (two at 1280 px, one at
 * 390 px) consent, answer the question on the page before the lobby (one experienced planner, two newcomers), and
 * reach one group room; the page fits 390 px, is keyboard-answerable, and shows the question's text as text. In the
 * room, with a two-field shared artifact, one keystroke is one stored document update (not one per field), under the
 * field typed in. Real server, real SQLite file; the built client (dist/client) is needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupStudyDirs } from '../support/groupTestStudies';
import { consentedMember, startGroupServer, type OpenPage } from '../support/groupBrowserSupport';
import type { ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'group-screening-e2e';
let t: ServerAndBrowser;
const dirs = groupStudyDirs();

/** group-quota-demo.yaml with markup in the question (shown as text), a second shared text field, an offline agent. */
function writeStudy(): void {
  let text = fs.readFileSync(path.join(dirs.studiesDir, 'group-quota-demo.yaml'), 'utf8');
  const edits: [string, string][] = [
    ['text: How often have you planned an event or an outing for a group of people?', 'text: "How often have you planned <b>an event</b> for a group?"'],
    [
      '        max_length: 8000\n',
      '        max_length: 8000\n      - id: budget\n        label: Rough budget\n        kind: text\n        required: false\n        max_length: 2000\n',
    ],
    ['        provider: openai\n        model: gpt-4o-mini\n        system_prompt: |\n          You facilitate', '        provider: offline\n        model: gpt-4o-mini\n        system_prompt: |\n          You facilitate'],
  ];
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`test setup: ${from} not in group-quota-demo.yaml`);
    text = text.replace(from, to);
  }
  fs.writeFileSync(path.join(dirs.studiesDir, `${STUDY}.yaml`), text);
}

beforeAll(async () => {
  writeStudy();
  t = await startGroupServer('tandem-e2e-screening-', dirs, 'dist');
}, 180_000);

afterAll(async () => {
  await t?.close();
  dirs.cleanup();
});

type Member = OpenPage;

async function consented(browser: Browser, label: string, width: number): Promise<Member> {
  const member = await consentedMember(browser, t.url, STUDY, label, width);
  await member.page.getByRole('heading', { name: 'Before you join your group' }).waitFor({ timeout: 15_000 });
  return member;
}

/** Answers the screening question with the option labelled `label` and continues. */
async function answer(m: Member, label: RegExp): Promise<void> {
  await m.page.getByRole('radio', { name: label }).check();
  await m.page.getByRole('button', { name: 'Continue to the waiting room' }).click();
}

describe('the screening question before the group lobby, in Chromium', () => {
  it('three people answer it, are grouped by it, and one keystroke in a two-field room is stored once', async () => {
    const expert = await consented(t.browser, 'e2e-expert', 1280);
    // The question is text, not markup; the page asks before it lets anyone into the lobby.
    const group = expert.page.getByRole('group', { name: 'How often have you planned <b>an event</b> for a group?' });
    await group.waitFor();
    expect(await expert.page.locator('.group-screening b').count()).toBe(0);
    await expert.page.getByRole('button', { name: 'Continue to the waiting room' }).click();
    await expert.page.getByText('Please choose an answer.').waitFor();
    await expect(expert.page.getByRole('radio', { name: /^Often/ }).getAttribute('aria-invalid')).resolves.toBe('true');
    await answer(expert, /^Often/);
    await expert.page.getByTestId('lobby-count').filter({ hasText: '1 of 3 people here' }).waitFor({ timeout: 15_000 });

    const n1 = await consented(t.browser, 'e2e-newcomer-1', 1280);
    await answer(n1, /^Rarely/);
    await expert.page.getByTestId('lobby-count').filter({ hasText: '2 of 3 people here' }).waitFor({ timeout: 15_000 });

    const narrow = await consented(t.browser, 'e2e-newcomer-2', 390);
    // At 390 px the question page fits the width, and the keyboard answers it: focus the first radio, arrow, Enter.
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await narrow.page.getByRole('radio', { name: /^Often/ }).focus();
    await narrow.page.keyboard.press('ArrowDown');
    await expect(narrow.page.getByRole('radio', { name: /^Rarely/ }).isChecked()).resolves.toBe(true);
    await narrow.page.keyboard.press('Enter');
    for (const m of [expert, n1, narrow]) await m.page.getByRole('heading', { name: 'Your group' }).waitFor({ timeout: 20_000 });
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Grouped by the answers, as stored for each session.
    const store = t.server.store;
    const groups = await store.groups.listActiveGroups();
    const ours = groups.filter((g) => g.studyId === STUDY);
    expect(ours).toHaveLength(1);
    const groupId = ours[0]!.id;
    const members = (await store.groups.listMembers(groupId)).filter((m) => m.sessionId !== null);
    const values = await Promise.all(members.map(async (m) => (await store.surveyAnswers.listForSession(m.sessionId!)).map((a) => a.valueText)));
    expect(values).toEqual([['experienced'], ['newcomer'], ['newcomer']]);

    // Reloaded, a seated person sees the room again, not the question.
    await n1.page.reload();
    await n1.page.getByRole('heading', { name: 'Your group' }).waitFor({ timeout: 20_000 });
    expect(await n1.page.getByRole('heading', { name: 'Before you join your group' }).count()).toBe(0);

    // One keystroke in the first of two shared fields: one stored update, under that field; the others see it there.
    const before = (await store.groups.listDocUpdates(groupId)).length;
    await expert.page.getByTestId('shared-plan').click();
    await expert.page.keyboard.type('M');
    await narrow.page.waitForFunction(() => (document.querySelector('[data-testid="shared-plan"]') as HTMLTextAreaElement | null)?.value === 'M', null, { timeout: 15_000 });
    await new Promise((r) => setTimeout(r, 500)); // a second (duplicate) update would have been sent with the first
    const stored = (await store.groups.listDocUpdates(groupId)).slice(before);
    expect(stored.map((u) => u.fieldId)).toEqual(['plan']);
    await expect(narrow.page.getByTestId('shared-budget').inputValue()).resolves.toBe('');

    // And one in the second field: one more update, under budget.
    await n1.page.getByTestId('shared-budget').click();
    await n1.page.keyboard.type('9');
    await expert.page.waitForFunction(() => (document.querySelector('[data-testid="shared-budget"]') as HTMLTextAreaElement | null)?.value === '9', null, { timeout: 15_000 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await store.groups.listDocUpdates(groupId)).slice(before).map((u) => u.fieldId)).toEqual(['plan', 'budget']);
    await expect(expert.page.getByTestId('shared-plan').inputValue()).resolves.toBe('M');

    expect([...expert.errors, ...n1.errors, ...narrow.errors]).toEqual([]);
    for (const m of [expert, n1, narrow]) await m.context.close();
  }, 180_000);
});
