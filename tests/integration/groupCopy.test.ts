/**
 * db:copy of a live group study, SQLite → PostgreSQL → SQLite: a group formed and worked over real sockets on a
 * SQLite server, copied to PostgreSQL (every group table in dependency order, counts and hashes verified), where a
 * server on the copy lets a member reconnect with the same link and find the room's history and shared document,
 * and go on (the next group_seq, the next edit); then copied back to a new SQLite file, equal row for row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupView } from '../../common/groupEvents';
import { DATABASE_FILE_NAME, openStoreAt, type Store } from '../../lib/storage';
import { copyDatabase, type CopyReport } from '../../lib/storage/copy/copyDatabase';
import { consentedPerson, editShared, groupOk, grouped, rebuiltDoc, type GroupPerson } from '../support/groupClients';
import { groupStudyDirs } from '../support/groupTestStudies';
import { connectSocket, startTestServer, type TestServer } from '../support/integrationHarness';
import { createTestDatabaseUrl } from '../support/postgresTestDatabase';

const STUDY = 'group-copy';
const GROUP_TABLES = ['study_groups', 'lobby_entries', 'group_members', 'group_events', 'group_messages', 'group_doc_updates'];

async function groupRows(store: Store, groupId: string) {
  return {
    groups: await store.groups.listGroups(STUDY),
    lobby: await store.groups.listLobbyEntries(STUDY),
    members: await store.groups.listMembers(groupId),
    events: await store.groups.listEvents(STUDY),
    messages: await store.groups.listMessages(groupId),
    doc: await store.groups.listDocUpdates(groupId),
  };
}

async function readStore<T>(target: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const s = await openStoreAt(target);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

describe('db:copy of a group study', () => {
  const dirs = groupStudyDirs();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-group-copy-'));
  const backFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-group-copy-back-')), 'back.sqlite');
  let pgUrl: string;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    const text = fs
      .readFileSync(path.join(dirs.studiesDir, 'group-demo.yaml'), 'utf8')
      .replace('speaks: { every_n_messages: 3 }', 'speaks: when_addressed')
      .replace(/      - name: Facilitator\n        provider: openai/, '      - name: Facilitator\n        provider: offline');
    fs.writeFileSync(path.join(dirs.studiesDir, `${STUDY}.yaml`), text);
    pgUrl = await createTestDatabaseUrl('group copy');
  });
  afterAll(async () => {
    for (const s of servers) await s.server.close().catch(() => undefined);
    dirs.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(path.dirname(backFile), { recursive: true, force: true });
  });

  /** A server on `databaseUrl` (or the SQLite file in dataDir) over the same data folder (its pseudonym key). */
  async function serve(databaseUrl?: string): Promise<TestServer> {
    const t = await startTestServer({ engine: databaseUrl ? 'postgres' : 'sqlite', dataDir, databaseUrl, studiesDir: dirs.studiesDir, surveysDir: dirs.surveysDir, groups: { sweepMs: 60_000 } });
    servers.push(t);
    return t;
  }
  async function stop(t: TestServer): Promise<void> {
    for (const s of t.sockets) s.disconnect();
    await t.server.close();
    servers.splice(servers.indexOf(t), 1);
  }

  it('copies the group tables both ways, verified, and the room goes on on the copy', async () => {
    // On SQLite: three people form a group, talk and edit the shared plan.
    const onSqlite = await serve();
    const people: GroupPerson[] = [];
    for (let i = 0; i < 3; i++) people.push(await consentedPerson(onSqlite, STUDY));
    for (const p of people) await groupOk(p.socket, 'group:lobby:join');
    const [a, b, c] = people as [GroupPerson, GroupPerson, GroupPerson];
    const groupId = grouped(await groupOk<GroupView>(a.socket, 'group:status'))!.groupId;
    await groupOk(a.socket, 'group:send', { groupId, clientId: 'a1', text: 'Museum at 10 — “ok”? 🚲' });
    await groupOk(b.socket, 'group:send', { groupId, clientId: 'b1', text: 'Yes.' });
    await editShared(groupId, a, [b, c], 'plan', 0, 'Museum at 10. ');
    await editShared(groupId, b, [a, c], 'plan', 14, 'Lunch by the lake.');
    await stop(onSqlite);
    // (Stopping the server recorded each member's disconnect: read the file as it was left.)
    const sqliteFile = path.join(dataDir, DATABASE_FILE_NAME);
    const before = await readStore(sqliteFile, (s) => groupRows(s, groupId));
    expect(before.events.filter((e) => e.type === 'disconnected')).toHaveLength(3);

    // SQLite → PostgreSQL: every group table in the report, in dependency order, with its rows.
    const toPg: CopyReport = await copyDatabase({ from: sqliteFile, to: pgUrl });
    const reported = toPg.tables.map((x) => x.table).filter((name) => GROUP_TABLES.includes(name));
    expect(reported).toEqual(GROUP_TABLES);
    const rowsOf = (r: CopyReport) => Object.fromEntries(r.tables.filter((x) => GROUP_TABLES.includes(x.table)).map((x) => [x.table, x.rows]));
    expect(rowsOf(toPg)).toEqual({
      study_groups: 1,
      lobby_entries: 3,
      group_members: 4,
      group_events: before.events.length,
      group_messages: 2,
      group_doc_updates: 2,
    });
    expect(await readStore(pgUrl, (s) => groupRows(s, groupId))).toEqual(before);

    // A server on the copy: a reconnects with their link's token, finds the room, and the room goes on.
    const onPg = await serve(pgUrl);
    // (a's token from the SQLite server: the copy has the tokens table too.)
    const socket = await connectSocket(onPg, a.token);
    const view = grouped(await groupOk<GroupView>(socket, 'group:status'))!;
    expect(view.messages.map((m) => [m.groupSeq, m.senderName, m.text])).toEqual([
      [1, 'Member 1', 'Museum at 10 — “ok”? 🚲'],
      [2, 'Member 2', 'Yes.'],
    ]);
    expect(rebuiltDoc(view).getText('plan').toString()).toBe('Museum at 10. Lunch by the lake.');
    expect(await groupOk(socket, 'group:send', { groupId, clientId: 'a2', text: 'Booked.' })).toEqual({ groupSeq: 3 });
    const moved = { ...a, socket, doc: rebuiltDoc(view) };
    expect(await editShared(groupId, moved, [], 'plan', 0, 'Final: ')).toBe(3);
    await stop(onPg);
    const onPgRows = await readStore(pgUrl, (s) => groupRows(s, groupId));
    // group_events' identity went on past the copied ids (the reconnect's event).
    expect(onPgRows.events.at(-1)!.id).toBeGreaterThan(before.events.at(-1)!.id);

    // PostgreSQL → SQLite: the same rows, the same hashes for what came from the first copy's tables.
    const back = await copyDatabase({ from: pgUrl, to: backFile });
    expect(back.tables.filter((x) => GROUP_TABLES.includes(x.table)).map((x) => x.rows)).toEqual([1, 3, 4, onPgRows.events.length, 3, 3]);
    expect(await readStore(backFile, (s) => groupRows(s, groupId))).toEqual(onPgRows);
  });
});
