/**
 * db:copy on real engines: a study seeded through the Store on SQLite goes to a fresh PostgreSQL database
 * (the run's throwaway cluster) and back to a new SQLite file; every table verifies and reads back equal.
 */
import { emptySummary } from '../../../common/telemetrySummary';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedSession, seedStudyRow } from '../../../tests/support/seedStudy';
import { createTestDatabaseUrl } from '../../../tests/support/postgresTestDatabase';
import { openStoreAt } from '../openStore';
import { STORE_TABLES, type PreregistrationRow, type Store } from '../contract/store';
import { CopyError, copyDatabase, type CopyReport } from './copyDatabase';
import { TableHasher } from './tableHash';
import { nodeArgsFor } from '../../../tests/support/testEntries';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-copy-'));

/** Rows in every table, through the store's own repositories (no SQL here). */
const PREREG_DOCUMENT = {
  study_id: 'study', version: 1, locked_at: new Date(16).toISOString(), locked_at_ms: 16, locked_by: 'researcher', plan_file: 'studies/study.prereg.yaml', plan_hash: 'ph', study_hash: 'sh',
  plan: {
    title: 'p', hypotheses: [{ id: 'h1', text: 't' }], secondary: [], sample: { n_per_condition: 2, rationale: 'r' }, stopping_rule: { n_per_condition: 2 },
    primary: { hypothesis: 'h1', outcome: 'quality', comparison: { a: 'a', b: 'b', direction: 'greater', test: 'mann_whitney', alpha: 0.05 } },
    exclusions: { pilot: true, integrity_flags: [], failed_attention_check: false, unscored: true },
    analysis: { lambda: 0.5, cost: 'weighted', bootstrap: { replicates: 10, seed: 1 }, judge: { model: 'm', samples: 1, rubric: 'r' } },
  },
  fingerprint: [{ file: 'studies/study.yaml', field: 'title', hash: 'h' }],
} as const satisfies PreregistrationRow['document'];

async function seedEverything(store: Store, dataDir: string): Promise<string[]> {
  await seedStudyRow(store, 'study');
  const ids = [
    await seedSession(store, dataDir, 'study', {
      platformUserId: 'P1',
      messages: [
        { role: 'user', text: 'Grüße 👋 — “quotes” and \\ backslash' },
        { role: 'assistant', text: 'Hello!\nSecond line' },
      ],
      likert: { z_last: 5, a_first: 2 },
      image: { fileName: 'fig.png', bytes: Buffer.from('png bytes') },
    }),
    await seedSession(store, dataDir, 'study', { platformUserId: 'P2', isPilot: true, status: 'completed' }),
  ];
  const [s1] = ids as [string];
  await store.tokens.insert('f'.repeat(64), s1, 1_796_000_000_000);
  await store.artifacts.saveDraft({ sessionId: s1, fields: { text: 'draft ✎' }, eventSeq: 1, savedAt: 1_796_000_000_001, version: 3, recordedVersion: 2, recordedAt: 1_796_000_000_000 });
  await store.replyProgress.save({ replyId: 'reply-1', sessionId: s1, text: 'partial', provider: 'fake', firstDeltaAt: 10, updatedAt: 20 });
  // A later checkpoint's part: the copy must keep it, or the recovered text would end at 'partial'.
  await store.replyProgress.saveMany([{ replyId: 'reply-1', sessionId: s1, text: ' text', textFrom: 7, provider: 'fake', firstDeltaAt: 10, updatedAt: 30 }]);
  await store.judgements.upsert({
    sessionId: s1, artifactVersion: 1, rubricId: 'r', rubricVersion: '1', rubricHash: 'rh', templateHash: 'th', parserVersion: 'p1',
    sample: 0, requestedModel: 'm', reportedModel: 'm-2026', systemFingerprint: null, provider: 'fake', providerUrl: null,
    parameters: { temperature: 0.7, maxTokens: 300 } as never, seed: 42, score: 4, parseOk: true, failureReason: null, rawReply: 'Score: 4',
    reaskReply: null, reasked: false, usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } as never, latencyMs: 12, cached: false,
    cacheKey: 'ck', transportError: null, createdAt: 1_796_000_000_002,
    images: [{ field: 'figure', mediaType: 'image/png', bytes: 9, sha256: 'a'.repeat(64) }],
  });
  await store.judgements.setQuality({ sessionId: s1, artifactVersion: 1, rubricId: 'r', rubricHash: 'rh', requestedModel: 'm', quality: 3.5, samples: 2, parsed: 2, updatedAt: 5 });
  await store.annotations.upsertMany([
    { sessionId: s1, turn: 0, messageId: null, speaker: 'user', friction: 'none', grounding: ['ack'], guideHash: 'g', requestedModel: 'm', reportedModel: null, provider: 'fake', providerUrl: null, method: 'batch', failureReason: null, createdAt: 6 },
    { sessionId: s1, turn: 1, messageId: null, speaker: 'agent', friction: null, grounding: [], guideHash: 'g', requestedModel: 'm', reportedModel: null, provider: 'fake', providerUrl: null, method: 'failed', failureReason: 'unparsable', createdAt: 7 },
  ]);
  await store.adminAuth.setCredential('scrypt$1$2$3$salt$hash', 'generated', 8);
  await store.adminAuth.insertSession({ tokenHash: 'th1', csrfToken: 'c', actor: 'researcher', createdAt: 9, expiresAt: 9e12, lastSeenAt: 9 });
  await store.audit.append({ at: 10, actor: 'researcher', action: 'login', studyId: null });
  await store.audit.append({ at: 11, actor: 'researcher', action: 'export', studyId: 'study', details: { files: 3 } });
  await store.withdrawals.recordTombstone({ studyId: 'study', tombstone: 'hmac-1', withdrawnAt: 12, deletedSessions: 1, actor: 'cli' });
  const telemetry = emptySummary();
  telemetry.artifact.pastedChars = 120;
  await store.telemetry.put({ sessionId: s1, summary: telemetry, batches: 2, bytes: 640, updatedAt: 13 });
  await store.reviews.insertIfAbsent({ replyId: 'review-1', sessionId: s1, studyId: 'study', replyTo: 'm1', mode: 'review', createdAt: 14, deadlineAt: 99 });
  await store.reviews.saveDraft('review-1', 'a draft', { provider: 'offline', providerUrl: null, model: 'm', usage: null, ttftMs: 1, durationMs: 2, finishReason: 'stop', attempts: 1, systemFingerprint: null, error: null }, 15);
  await store.preregistrations.insertVersion({ studyId: 'study', version: 1, planHash: 'ph', studyHash: 'sh', lockedAt: 16, lockedBy: 'researcher', document: PREREG_DOCUMENT });
  await store.preregistrations.recordDeviation({ studyId: 'study', version: 1, kind: 'changed_after_lock', file: 'studies/study.yaml', field: 'title', message: 'title changed after the lock', detectedAt: 17 });
  await store.pseudonymKey.recordIfAbsent('b'.repeat(64), 16);
  await seedGroup(store, ids);
  return ids;
}

/** One group of both sessions and an agent: lobby, seats, events, room messages and a shared-document edit. */
async function seedGroup(store: Store, ids: string[]): Promise<void> {
  const [s1, s2] = ids as [string, string];
  for (const [i, sessionId] of ids.entries())
    await store.groups.joinLobby({ sessionId, studyId: 'study', conditionId: 'c', taskId: 't', quotaValue: i === 0 ? 'expert' : null, joinedAt: 18, deadlineAt: 48 });
  await store.groups.createGroup({ id: 'group-1', studyId: 'study', conditionId: 'c', taskId: 't', sizeAtStart: 2, agents: ['Facilitator'], formedAt: 19 });
  await store.groups.settleLobby(ids, 'grouped', 19, 'group-1');
  await store.groups.addMember({ groupId: 'group-1', seat: 1, kind: 'participant', sessionId: s1, displayName: 'Member 1', status: 'present', joinedAt: 19 });
  await store.groups.addMember({ groupId: 'group-1', seat: 2, kind: 'participant', sessionId: s2, displayName: 'Member 2', status: 'present', joinedAt: 19 });
  await store.groups.addMember({ groupId: 'group-1', seat: 3, kind: 'agent', sessionId: null, displayName: 'Facilitator', status: 'present', joinedAt: 19 });
  await store.groups.setMemberStatus('group-1', 2, 'away', 21);
  await store.groups.appendEvent({ studyId: 'study', groupId: 'group-1', sessionId: s1, type: 'grouped', serverTs: 19, payload: { wait_ms: 1, seat: 1 } });
  await store.groups.appendEvent({ studyId: 'study', groupId: 'group-1', sessionId: s2, type: 'disconnected', serverTs: 21, payload: {} });
  await store.groups.appendMessage({ id: 'gm-1', groupId: 'group-1', senderKind: 'participant', sessionId: s1, senderName: 'Member 1', clientId: 'c1', content: 'Plan: “Ölmühle” 🚲', tokens: 5, createdAt: 20 });
  await store.groups.appendMessage({ id: 'gm-2', groupId: 'group-1', senderKind: 'agent', sessionId: null, senderName: 'Facilitator', clientId: null, content: 'Noted.', tokens: 2, createdAt: 21 });
  await store.groups.appendDocUpdate({ groupId: 'group-1', sessionId: s1, fieldId: 'plan', update: 'AQGtvfkFAAQBBHBsYW4DaGkh', createdAt: 22 });
  await store.groups.endGroup('group-1', 'submitted', 23);
  await store.groupJudgements.upsert({
    groupId: 'group-1', docVersion: 1, rubricId: 'r', rubricVersion: '1', rubricHash: 'rh', templateHash: 'th', parserVersion: 'p1',
    sample: 0, requestedModel: 'm', reportedModel: null, systemFingerprint: 'fp', provider: 'fake', providerUrl: 'http://x',
    parameters: { temperature: 0.7, maxTokens: 300 }, seed: 7, score: null, parseOk: false, failureReason: 'no score', rawReply: 'hm',
    reaskReply: 'still hm', reasked: true, usage: null, latencyMs: 3, cached: true, cacheKey: 'gk',
    transportError: { kind: 'http', status: 500, message: 'ü' }, createdAt: 24,
  });
  await store.groupJudgements.setQuality({ groupId: 'group-1', docVersion: 1, rubricId: 'r', rubricHash: 'rh', requestedModel: 'm', quality: null, samples: 1, parsed: 0, updatedAt: 25 });
}

/** What the services read back, table by table (the engine-neutral view of the data). */
async function readBack(store: Store, ids: string[]) {
  return {
    counts: await store.countRows(),
    pseudonymKeyFingerprint: await store.pseudonymKey.fingerprint(),
    studies: await store.studies.list(),
    sessions: await store.sessions.listByStudy('study'),
    perSession: await Promise.all(
      ids.map(async (id) => ({
        identity: await store.identities.get(id),
        events: await store.events.listForSession(id),
        messages: await store.messages.listForSession(id),
        draft: await store.artifacts.getDraft(id),
        versions: await store.artifacts.listVersions(id),
        uploads: await store.uploads.listForSession(id),
        answers: await store.surveyAnswers.listForSession(id),
        judgements: await store.judgements.listForSession(id),
        quality: await store.judgements.getQuality(id),
        annotations: await store.annotations.listForSession(id),
        telemetry: await store.telemetry.get(id),
        reviews: await store.reviews.listForSession(id),
      })),
    ),
    progress: await store.replyProgress.get('reply-1'),
    tokens: await store.tokens.listAll(),
    credential: await store.adminAuth.getCredential(),
    adminSession: await store.adminAuth.findLiveSession('th1', 10),
    audit: await store.audit.list({ limit: 10 }),
    tombstones: [...(await store.withdrawals.tombstones('study'))],
    groups: {
      groups: await store.groups.listGroups('study'),
      lobby: await store.groups.listLobbyEntries('study'),
      members: await store.groups.listMembers('group-1'),
      events: await store.groups.listEvents('study'),
      messages: await store.groups.listMessages('group-1'),
      doc: await store.groups.listDocUpdates('group-1'),
      judgements: await store.groupJudgements.listForStudy('study'),
      quality: await store.groupJudgements.getQuality('group-1'),
    },
  };
}

async function withStore<T>(target: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStoreAt(target);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const hashes = (r: CopyReport) => Object.fromEntries(r.tables.map((t) => [t.table, `${t.rows}:${t.sha256}`]));

describe('db:copy', () => {
  const dir = tmp();
  const sqliteA = path.join(dir, 'a.sqlite');
  const sqliteB = path.join(dir, 'b.sqlite');
  let pgUrl: string;
  let ids: string[];
  let original: Awaited<ReturnType<typeof readBack>>;
  let toPg: CopyReport;

  beforeAll(async () => {
    pgUrl = await createTestDatabaseUrl('copy target');
    ids = await withStore(sqliteA, (s) => seedEverything(s, dir));
    original = await withStore(sqliteA, (s) => readBack(s, ids));
  });

  it('copies SQLite → PostgreSQL → SQLite with every table verified and the data reading back equal', async () => {
    for (const t of STORE_TABLES) expect(original.counts[t], `seed fills ${t}`).toBeGreaterThan(0);

    toPg = await copyDatabase({ from: sqliteA, to: pgUrl });
    expect(toPg.tables.map((t) => t.table)).toEqual([...STORE_TABLES]);
    expect(await withStore(pgUrl, (s) => readBack(s, ids))).toEqual(original);

    const back = await copyDatabase({ from: pgUrl, to: sqliteB });
    // The same rows hash the same on both engines.
    expect(hashes(back)).toEqual(hashes(toPg));
    expect(await withStore(sqliteB, (s) => readBack(s, ids))).toEqual(original);
  });

  it('keeps ids growing after the copy (PostgreSQL identities move past the copied ids)', async () => {
    const before = original.audit[0]!.id;
    const next = await withStore(pgUrl, (s) => s.audit.append({ at: 13, actor: 'r', action: 'after-copy', studyId: null }));
    expect(next).toBe(before + 1);
    const seq = await withStore(pgUrl, (s) => s.events.append(ids[0]!, 'after-copy', {}, 14, null));
    expect(seq).toBe(original.perSession[0]!.events.length + 1);
    // The group's numbers go on too: the room's next group_seq and document seq, and group_events' identity.
    await withStore(pgUrl, async (s) => {
      const gid = await s.groups.appendEvent({ studyId: 'study', groupId: 'group-1', sessionId: null, type: 'after-copy', serverTs: 24, payload: {} });
      expect(gid).toBe(original.groups.events.at(-1)!.id + 1);
      await s.transaction(async (tx) => {
        // endGroup ended it; appends still number on (the room code refuses them, the store does not).
        const { message } = await tx.groups.appendMessage({ id: 'gm-3', groupId: 'group-1', senderKind: 'system', sessionId: null, senderName: 'Tandem', clientId: null, content: 'after', tokens: 1, createdAt: 25 });
        expect(message.groupSeq).toBe(3);
        expect(await tx.groups.appendDocUpdate({ groupId: 'group-1', sessionId: null, fieldId: 'plan', update: 'AAA=', createdAt: 25 })).toBe(2);
      });
    });
  });

  it('refuses a non-empty target without --force and leaves it unchanged; with --force replaces its rows', async () => {
    const before = await withStore(pgUrl, (s) => s.countRows());
    const err = await copyDatabase({ from: sqliteA, to: pgUrl }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CopyError);
    expect((err as Error).message).toMatch(/^the target .* is not empty \(studies: 1, sessions: 2, .*\); pass --force to replace its contents$/);
    expect(await withStore(pgUrl, (s) => s.countRows())).toEqual(before);

    const forced = await copyDatabase({ from: sqliteA, to: pgUrl, force: true });
    expect(forced.replacedRows).toBe(Object.values(before).reduce((a, b) => a + b, 0));
    expect(hashes(forced)).toEqual(hashes(toPg));
    expect(await withStore(pgUrl, (s) => readBack(s, ids))).toEqual(original);
  });

  it('refuses copying a database onto itself and a missing SQLite source', async () => {
    await expect(copyDatabase({ from: sqliteA, to: sqliteA })).rejects.toThrow(/name the same database/);
    await expect(copyDatabase({ from: path.join(dir, 'missing.sqlite'), to: path.join(dir, 'c.sqlite') })).rejects.toThrow(/--from: no SQLite file at/);
    expect(fs.existsSync(path.join(dir, 'c.sqlite'))).toBe(false);
  });
});

describe('TableHasher', () => {
  it('hashes a row by its columns’ names, not their order, and changes with any value', () => {
    const h = (cols: string[], rows: (string | number | null)[][]) => {
      const t = new TableHasher(cols);
      rows.forEach((r) => t.add(r));
      return t.digest();
    };
    const base = h(['id', 'n', 'text'], [['a', 1, null]]);
    expect(h(['text', 'id', 'n'], [[null, 'a', 1]])).toBe(base);
    expect(h(['id', 'n', 'text'], [['a', 2, null]])).not.toBe(base);
    expect(h(['id', 'n', 'text'], [['a', 1, '']])).not.toBe(base);
    expect(h(['id', 'n', 'text'], [['a', '1', null]])).not.toBe(base);
  });
});

describe('npm run db:copy (the CLI)', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, [...nodeArgsFor('cli/dbCopy.ts'), ...args], { cwd: path.resolve(__dirname, '../../..') }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('names an unknown flag and a bad value, and exits 2 without touching anything', async () => {
    const unknown = await run(['--frm', 'a.sqlite', '--to', 'b.sqlite']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--frm'");
    const bad = await run(['--from', 'mysql://host/db', '--to', 'b.sqlite']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from: must be a SQLite file path or a postgres:// (postgresql://) URL');
    const missing = await run(['--from', 'a.sqlite']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--to: /);
  });

  it('copies, prints each table verified, and refuses the same copy again (exit 1)', async () => {
    const dir = tmp();
    const from = path.join(dir, 'src.sqlite');
    await withStore(from, (s) => seedEverything(s, dir));
    const to = await createTestDatabaseUrl('copy cli');
    const first = await run(['--from', from, '--to', to]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    for (const t of STORE_TABLES) expect(first.stdout).toMatch(new RegExp(`\\n  ${t} +\\d+  sha256 [0-9a-f]{64}  verified`));
    const again = await run(['--from', from, '--to', to]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/is not empty .*pass --force/);
  });
});
