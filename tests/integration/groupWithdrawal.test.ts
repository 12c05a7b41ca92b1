/**
 * Withdrawing one member of a group, on both engines, over a real server and real socket.io clients: only that
 * member's messages, document edits and group events go; the others' rows are untouched and the shared document
 * still loads for them (without the member's text); the group's record keeps a `withdrawn` tombstone with counts
 * only; and a canary string the member wrote in a message and in the document is nowhere afterwards: not in the
 * SQLite file's bytes, not in any row of any PostgreSQL table, not in the export folder.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupView } from '../../common/groupEvents';
import { DATABASE_FILE_NAME } from '../../lib/storage';
import { exportStudy } from '../../research/exports/exportStudy';
import { withdrawParticipant } from '../../server/admin/withdrawal';
import { canaryNeedles, consentedPerson, editShared, groupOk, grouped, rebuiltDoc, type GroupPerson } from '../support/groupClients';
import { groupStudyDirs } from '../support/groupTestStudies';
import { startTestServer, type TestServer } from '../support/integrationHarness';
import { createTestStoreTarget, STORE_ENGINES } from '../support/testStores';

const STUDY = 'group-withdraw';
const CANARY = 'CANARYq7Zx3Wm9vK2withdrawnMember';

/** The demo with an agent that speaks only when addressed (so no reply can quote the member). */
function writeStudy(studiesDir: string): void {
  const text = fs
    .readFileSync(path.join(studiesDir, 'group-demo.yaml'), 'utf8')
    .replace('speaks: { every_n_messages: 3 }', 'speaks: when_addressed')
    .replace(/      - name: Facilitator\n        provider: openai/, '      - name: Facilitator\n        provider: offline');
  fs.writeFileSync(path.join(studiesDir, `${STUDY}.yaml`), text);
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const TSX = path.resolve('node_modules/.bin/tsx');

const holdsCanary = (text: string) => canaryNeedles(CANARY).some((n) => text.includes(n));

describe.each(STORE_ENGINES)('withdrawing one member of a group (%s)', (engine) => {
  let t: TestServer;
  let databaseUrl: string | undefined;
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    writeStudy(dirs.studiesDir);
    const target = await createTestStoreTarget(engine, 'group-withdrawal');
    databaseUrl = target.databaseUrl;
    t = await startTestServer({ engine, dataDir: target.dataDir, databaseUrl, studiesDir: dirs.studiesDir, surveysDir: dirs.surveysDir, groups: { sweepMs: 60_000 } });
  });
  afterAll(async () => {
    await t?.close();
    dirs.cleanup();
  });

  /** Every stored text a canary could hide in: the SQLite files' bytes, or every row of every PostgreSQL table. */
  async function storedText(): Promise<string> {
    if (!databaseUrl) {
      const file = path.join(t.dataDir, DATABASE_FILE_NAME);
      // Checkpoint the WAL into the file and truncate it (another connection, as a backup tool would).
      const db = new Database(file);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      return [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('\n');
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const tables = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
      );
      expect(tables.rows.map((r) => r.name)).toContain('group_doc_updates');
      const out: string[] = [];
      for (const { name } of tables.rows) {
        for (const r of (await client.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`)).rows) out.push(r.row);
      }
      // The document's updates decoded, too (the text inside a Yjs update is UTF-8).
      for (const r of (await client.query<{ u: string }>('SELECT doc_update AS u FROM group_doc_updates')).rows) out.push(Buffer.from(r.u, 'base64').toString('latin1'));
      return out.join('\n');
    } finally {
      await client.end();
    }
  }

  it('deletes only their messages, edits and events, keeps a tombstone, and leaves the canary nowhere', async () => {
    const [a, w, c] = [await consentedPerson(t, STUDY), await consentedPerson(t, STUDY), await consentedPerson(t, STUDY)] as [GroupPerson, GroupPerson, GroupPerson];
    for (const p of [a, w, c]) await groupOk(p.socket, 'group:lobby:join');
    const view = grouped(await groupOk<GroupView>(a.socket, 'group:status'))!;
    const groupId = view.groupId;
    const store = t.server.store;
    expect((await store.groups.listMembers(groupId)).map((m) => m.sessionId)).toEqual([a.sessionId, w.sessionId, c.sessionId, null]);

    await groupOk(a.socket, 'group:send', { groupId, clientId: 'a1', text: 'Lake or museum?' });
    await groupOk(w.socket, 'group:send', { groupId, clientId: 'w1', text: `Museum, and ${CANARY} says hi` });
    await groupOk(c.socket, 'group:send', { groupId, clientId: 'c1', text: 'Museum it is.' });
    // The document: a writes, w writes after it, c writes inside w's text and after it (placed relative to w's).
    const all = [a, w, c];
    const others = (p: GroupPerson) => all.filter((x) => x !== p);
    await editShared(groupId, a, others(a), 'plan', 0, 'Plan: museum at 10. ');
    await editShared(groupId, w, others(w), 'plan', 20, `Bring ${CANARY}. `);
    await editShared(groupId, c, others(c), 'plan', 26, '[lunch]');
    await editShared(groupId, c, others(c), 'plan', c.doc.getText('plan').length, 'Back by 17:00.');
    await editShared(groupId, w, others(w), 'plan', 0, 'W: ');
    expect(c.doc.getText('plan').toString()).toBe(`W: Plan: museum at 10. Bring [lunch]${CANARY}. Back by 17:00.`);
    expect(holdsCanary(await storedText())).toBe(true); // the check can see it while it is there

    const othersMessages = (await store.groups.listMessages(groupId)).filter((m) => m.sessionId !== w.sessionId);
    const othersEdits = (await store.groups.listDocUpdates(groupId)).filter((u) => u.sessionId !== w.sessionId);
    const othersEvents = (await store.groups.listGroupEvents(groupId)).filter((e) => e.sessionId !== w.sessionId);
    const wEdits = (await store.groups.listDocUpdates(groupId)).filter((u) => u.sessionId === w.sessionId);
    const wEvents = (await store.groups.listEvents(STUDY)).filter((e) => e.sessionId === w.sessionId);
    expect(wEvents.map((e) => e.type)).toEqual(['lobby_joined', 'grouped']);

    const identity = (await store.identities.get(w.sessionId))!;
    const result = await withdrawParticipant(store, { dataDir: t.dataDir, studyId: STUDY, platformUserId: identity.platformUserId!, actor: 'test', now: 1_800_000_000_000 });
    expect(result.deletedSessions).toBe(1);
    // Nowhere in the store (checked before anything else is written, which could overwrite freed space by chance).
    expect(holdsCanary(await storedText())).toBe(false);

    // The others' rows are as they were; the member's are gone; group_seq keeps its gap (w's message was 2).
    const messages = await store.groups.listMessages(groupId);
    expect(messages).toEqual(othersMessages);
    expect(messages.map((m) => m.groupSeq)).toEqual([1, 3]);
    const edits = await store.groups.listDocUpdates(groupId);
    expect(edits.filter((u) => u.sessionId !== null)).toEqual(othersEdits);
    // One content-free stand-in for w's edits, at the seq of w's first.
    expect(edits.filter((u) => u.sessionId === null).map((u) => u.seq)).toEqual([wEdits[0]!.seq]);
    const events = await store.groups.listGroupEvents(groupId);
    expect(events.filter((e) => e.type !== 'withdrawn')).toEqual(othersEvents);
    expect((await store.groups.listEvents(STUDY)).some((e) => e.sessionId === w.sessionId)).toBe(false);
    const tombstone = events.find((e) => e.type === 'withdrawn')!;
    expect(tombstone).toMatchObject({
      sessionId: null,
      serverTs: 1_800_000_000_000,
      payload: { seat: 2, messages_removed: 1, edits_removed: 2, chars_removed: `Bring ${CANARY}. `.length + 'W: '.length, events_removed: 1 },
    });
    expect((await store.groups.listMembers(groupId)).map((m) => [m.seat, m.sessionId, m.status])).toEqual([
      [1, a.sessionId, 'present'],
      [2, null, 'withdrawn'],
      [3, c.sessionId, 'present'],
      [4, null, 'present'],
    ]);

    // The others reload the room: the history without w's message, the document without w's text, theirs intact.
    const reloaded = grouped(await groupOk<GroupView>(a.socket, 'group:status'))!;
    expect(reloaded.messages.map((m) => [m.groupSeq, m.senderName, m.text])).toEqual([
      [1, 'Member 1', 'Lake or museum?'],
      [3, 'Member 3', 'Museum it is.'],
    ]);
    const doc = rebuiltDoc(reloaded);
    expect(doc.store.pendingStructs).toBeNull();
    expect(doc.getText('plan').toString()).toBe('Plan: museum at 10. [lunch]Back by 17:00.');
    // The room goes on: c edits and a writes, numbered after what was there.
    c.doc = rebuiltDoc(reloaded);
    expect(await editShared(groupId, c, [], 'plan', 0, 'Final. ')).toBe(wEdits.at(-1)!.seq + 1);
    expect(await groupOk(a.socket, 'group:send', { groupId, clientId: 'a2', text: 'Done.' })).toEqual({ groupSeq: 4 });

    // Still nowhere, and the export shows the tombstone and nothing of w's.
    expect(holdsCanary(await storedText())).toBe(false);
    const out = path.join(t.dataDir, 'export');
    await exportStudy({ store, dataDir: t.dataDir, studyId: STUDY, outDir: out, includePilot: false, includeIdentities: false });
    const files = filesUnder(out);
    for (const f of files) expect(holdsCanary(fs.readFileSync(f).toString('latin1')), path.relative(out, f)).toBe(false);
    const groupEvents = fs.readFileSync(path.join(out, 'group_events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(groupEvents.filter((e) => e.type === 'withdrawn')).toEqual([
      { group_id: groupId, session_id: null, type: 'withdrawn', server_ts: 1_800_000_000_000, wait_ms: null, payload: tombstone.payload },
    ]);
    const roomMessages = fs.readFileSync(path.join(out, 'messages.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.group_id === groupId);
    expect(roomMessages.map((m) => [m.group_seq, m.sender_name])).toEqual([
      [1, 'Member 1'],
      [3, 'Member 3'],
      [4, 'Member 1'],
    ]);
  });

  it('does the same from the command line, and says which group seat it kept', async () => {
    const people = [await consentedPerson(t, STUDY), await consentedPerson(t, STUDY), await consentedPerson(t, STUDY)];
    for (const p of people) await groupOk(p.socket, 'group:lobby:join');
    const groupId = grouped(await groupOk<GroupView>(people[0]!.socket, 'group:status'))!.groupId;
    const leaving = people[2]!;
    await groupOk(leaving.socket, 'group:send', { groupId, clientId: 'x1', text: `bye ${CANARY}` });
    const { DATABASE_URL: _inherited, ...env } = process.env;
    const { stdout } = await promisify(execFile)(TSX, ['cli/withdraw.ts', '--study', STUDY, '--participant', leaving.label], {
      env: { ...env, DATA_DIR: t.dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    });
    expect(stdout).toMatch(/1 session\(s\) deleted/);
    expect(stdout).toContain(`group ${groupId}: seat 3 kept as withdrawn`);
    const store = t.server.store;
    expect(await store.groups.listMessages(groupId)).toEqual([]);
    expect((await store.groups.listGroupEvents(groupId)).filter((e) => e.type === 'withdrawn').map((e) => e.payload)).toEqual([
      { seat: 3, messages_removed: 1, edits_removed: 0, chars_removed: 0, events_removed: 1 },
    ]);
  });
});
