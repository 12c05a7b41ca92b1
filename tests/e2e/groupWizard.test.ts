/**
 * The Wizard-of-Oz console in a group room, in Debian Chromium with three browser contexts (two participants at 1280
 * and 390 px, one researcher): the group condition's facilitator is declared `assistant: { mode: wizard }`, so its
 * model never answers; the researcher sees the room and the shared plan in the console and speaks as the facilitator
 * (typed and canned). The members see "Facilitator" (an agent); the store, the audit log and the dataset's
 * messages.jsonl say sender_kind researcher with no researcher identity. Real server, real SQLite file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportStudy } from '../../research/exports/exportStudy';
import { TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { groupStudyDirs } from '../support/groupTestStudies';
import { openPage, startGroupServer, writeStudyVariant } from '../support/groupBrowserSupport';
import type { ServerAndBrowser } from '../support/serverAndBrowser';

const STUDY = 'group-wizard';
const CANNED = 'Let us write the schedule in the shared plan.';
let t: ServerAndBrowser;
const dirs = groupStudyDirs();

/** group-demo.yaml for two people whose facilitator a researcher speaks as (offline model: it would answer at once if called). */
const WIZARD_EDITS = [
  ['size: { min: 2, max: 3 }', 'size: { min: 2, max: 2 }'],
  ['speaks: { every_n_messages: 3 }', `speaks: every_message\n        assistant:\n          mode: wizard\n          canned_replies: ["${CANNED}"]`],
  ['      - name: Facilitator\n        provider: openai', '      - name: Facilitator\n        provider: offline'],
] as const;

beforeAll(async () => {
  process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
  writeStudyVariant(dirs, 'group-demo.yaml', STUDY, WIZARD_EDITS);
  t = await startGroupServer('tandem-e2e-group-wizard-', dirs, 'temp');
}, 180_000);

afterAll(async () => {
  await t?.close();
  dirs.cleanup();
});

const page = openPage;

describe('the wizard console in a group room', () => {
  it('a researcher speaks as the group\'s facilitator; the members see the agent, the data say researcher', async () => {
    const wizard = await page(t.browser, 1280, `${t.url}/admin`);
    await wizard.page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await wizard.page.getByRole('button', { name: 'Log in' }).click();
    await wizard.page.getByRole('heading', { name: 'Studies' }).waitFor();
    await wizard.page.goto(`${t.url}/admin/studies/${STUDY}`);
    // The study page links the console: its group agent is spoken by a researcher.
    await wizard.page.getByRole('link', { name: 'Wizard console' }).click();
    await wizard.page.getByRole('heading', { name: 'Group rooms (0)' }).waitFor({ timeout: 15_000 });

    const people = [];
    for (const [label, width] of [['wiz-one', 1280], ['wiz-two', 390]] as const) {
      const p = await page(t.browser, width, `${t.url}/study/${STUDY}?participant_label=${label}`);
      await p.page.getByRole('button', { name: 'I agree and want to take part' }).click();
      people.push(p);
    }
    const [one, two] = people as [(typeof people)[0], (typeof people)[0]];
    for (const p of people) await p.page.getByRole('heading', { name: 'Your group' }).waitFor({ timeout: 20_000 });
    await wizard.page.getByRole('heading', { name: 'Group rooms (1)' }).waitFor({ timeout: 15_000 });
    const room = wizard.page.getByTestId('wizard-group').getByTestId('monitor-room');

    await one.page.getByLabel('Message to the group').fill('Where shall we go?');
    await one.page.getByRole('button', { name: 'Send' }).click();
    await room.locator('li[data-sender-kind="participant"]', { hasText: 'Where shall we go?' }).waitFor({ timeout: 15_000 });
    await two.page.getByTestId('shared-plan').fill('09:00 station');
    await wizard.page.getByTestId('wizard-group').getByTestId('monitor-doc-plan').filter({ hasText: '09:00 station' }).waitFor({ timeout: 15_000 });

    // The researcher answers as the facilitator, typed and then canned.
    await wizard.page.getByLabel('Message to the group as Facilitator').fill('Try the lake: it is close and flat.');
    await wizard.page.getByRole('button', { name: 'Send as Facilitator' }).click();
    await wizard.page.getByRole('button', { name: CANNED.slice(0, 39) }).click();
    for (const p of people) {
      const agentLines = p.page.getByTestId('group-messages').locator('li[data-sender-kind="agent"]');
      await agentLines.filter({ hasText: CANNED }).waitFor({ timeout: 15_000 });
      await expect(agentLines.locator('strong').allTextContents()).resolves.toEqual(['Facilitator', 'Facilitator']);
      await expect(agentLines.locator('.message-text').allTextContents()).resolves.toEqual(['Try the lake: it is close and flat.', CANNED]);
      // Nothing tells the members a person wrote it.
      expect(await p.page.getByTestId('group-messages').textContent()).not.toMatch(/wizard|researcher/i);
    }
    // The console marks the researcher's lines as such.
    await room.locator('li[data-sender-kind="researcher"]', { hasText: CANNED }).waitFor({ timeout: 15_000 });
    expect(await room.locator('li[data-sender-kind="researcher"] strong').allTextContents()).toEqual(['Facilitator', 'Facilitator']);
    // Its model was never called: no agent message but the researcher's two.
    const [group] = await t.server.store.groups.listGroups(STUDY);
    const stored = await t.server.store.groups.listMessages(group!.id);
    expect(stored.map((m) => [m.senderKind, m.senderName, m.sessionId])).toEqual([
      ['participant', 'Member 1', expect.any(String)],
      ['researcher', 'Facilitator', null],
      ['researcher', 'Facilitator', null],
    ]);
    const audit = (await t.server.store.audit.list({ studyId: STUDY })).filter((a) => a.action === 'wizard_group_message');
    expect(audit).toHaveLength(2);

    // The dataset: sender_kind researcher, the agent's name, and not the researcher's identity.
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-group-wizard-export-'));
    fs.rmSync(out, { recursive: true });
    await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: STUDY, outDir: out, includePilot: false, includeIdentities: false });
    const text = fs.readFileSync(path.join(out, 'messages.jsonl'), 'utf8');
    const rows = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.filter((r) => r.group_id === group!.id).map((r) => [r.sender_kind, r.sender_name])).toEqual([
      ['participant', 'Member 1'],
      ['researcher', 'Facilitator'],
      ['researcher', 'Facilitator'],
    ]);
    for (const a of audit) expect(text).not.toContain(a.actor);
    fs.rmSync(out, { recursive: true, force: true });

    expect([...one.errors, ...two.errors, ...wizard.errors]).toEqual([]);
    for (const c of [one, two, wizard]) await c.context.close();
  }, 180_000);
});
