/**
 * The balance counts a join reads (SessionsRepo.countByCondition / countByTask with `unconsentedSince`, migration 035)
 * equal a count of the sessions themselves, on both engines, through every way a session row changes: inserted
 * (pilot or not), consented by `update`, `changeFrom` and `change` (PostgreSQL's tandem_change_session_from writes
 * consented_at on every change), steps changed without consent, declined, completed, and deleted by a withdrawal;
 * and after db:copy with --force into a target that held other sessions.
 *
 * Migration 035 fills the table from the sessions a database already holds. On PostgreSQL, a withdrawal of several
 * sessions waits for a consent that holds a count instead of deadlocking with it.
 *
 * The expected counts come from a model of the rows kept beside the store (not from SQL): a non-pilot session counts
 * when it consented, or when it is still active, unconsented and created at or after `unconsentedSince`.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store, type StoreEngine } from '.';
import { DATABASE_FILE_NAME } from './openStore';
import { openDatabase } from './sqlite/database';
import { migrate, MIGRATIONS_DIR } from './sqlite/migrate';
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from './postgres/migrate';
import { migrationsUpTo } from '../../tests/support/migrationsUpTo';
import { createTestDatabaseUrl } from '../../tests/support/postgresTestDatabase';
import { tempFolders } from '../../tests/support/tempFolders';
import { copyDatabase } from './copy/copyDatabase';
import { seededRandom } from '../stats/seededRandom';
import { STORE_ENGINES, createTestStoreTarget } from '../../tests/support/testStores';

interface Modelled {
  studyId: string;
  conditionId: string;
  taskId: string;
  isPilot: boolean;
  createdAt: number;
  consented: boolean;
  status: 'active' | 'completed' | 'declined';
}

const STUDIES = ['study-a', 'study-b'];
const SINCES = [0, 400, 900, 5_000];

function expected(model: ReadonlyMap<string, Modelled>, studyId: string, since: number, by: 'conditionId' | 'taskId'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of model.values()) {
    if (s.studyId !== studyId || s.isPilot) continue;
    if (s.consented || (s.status === 'active' && s.createdAt >= since)) counts.set(s[by], (counts.get(s[by]) ?? 0) + 1);
  }
  return new Map([...counts].sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function expectCounts(store: Store, model: ReadonlyMap<string, Modelled>, when: string): Promise<void> {
  for (const studyId of STUDIES) {
    for (const since of SINCES) {
      expect(await store.sessions.countByCondition(studyId, since), `${when}: conditions of ${studyId} since ${since}`).toEqual(expected(model, studyId, since, 'conditionId'));
      expect(await store.sessions.countByTask(studyId, since), `${when}: tasks of ${studyId} since ${since}`).toEqual(expected(model, studyId, since, 'taskId'));
    }
  }
}

/** `steps` random changes to sessions of the two studies, mirrored in `model`, checking the counts every 10. */
async function churn(store: Store, model: Map<string, Modelled>, seed: number, steps: number, idPrefix: string): Promise<void> {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const where = (test: (s: Modelled) => boolean) => [...model].filter(([, s]) => test(s)).map(([id]) => id);
  let now = 1_000;
  for (let step = 0; step < steps; step++) {
    now += 1;
    const roll = random();
    const unconsented = where((s) => !s.consented && s.status === 'active');
    const consented = where((s) => s.consented && s.status === 'active');
    if (roll < 0.35 || model.size < 4) {
      const id = `${idPrefix}-${step}`;
      const row = { studyId: pick(STUDIES), conditionId: pick(['c1', 'c2', 'c3']), taskId: pick(['t1', 't2']), isPilot: random() < 0.2, createdAt: Math.floor(random() * 1_200) };
      await store.sessions.insert({ id, ...row });
      model.set(id, { ...row, consented: false, status: 'active' });
    } else if (roll < 0.5 && unconsented.length > 0) {
      const id = pick(unconsented);
      await store.sessions.update(id, { step: 'instructions', consentVersion: 'v1', consentedAt: now }, now);
      model.get(id)!.consented = true;
    } else if (roll < 0.6 && unconsented.length > 0) {
      // Consent through changeFrom(), as the consent handler does, or change() (one round trip each on PostgreSQL).
      const id = pick(unconsented);
      const events = [{ type: 'consent.given', payload: {}, clientTs: null }];
      const patch = { step: 'instructions', consentVersion: 'v1', consentedAt: now } as const;
      if (roll < 0.55) expect((await store.sessions.changeFrom(id, { step: 'consent', status: 'active' }, events, patch, now))?.changed).toBe(true);
      else await store.sessions.change(id, events, patch, now);
      model.get(id)!.consented = true;
    } else if (roll < 0.72 && consented.length > 0) {
      // A step change of a consented session leaves every count as it was.
      await store.sessions.change(pick(consented), [{ type: 'step.advanced', payload: {}, clientTs: null }], { step: 'workspace' }, now);
    } else if (roll < 0.8 && unconsented.length > 0) {
      const id = pick(unconsented);
      await store.sessions.update(id, { status: 'declined', endedAt: now }, now);
      model.get(id)!.status = 'declined';
    } else if (roll < 0.88 && consented.length > 0) {
      const id = pick(consented);
      await store.sessions.update(id, { step: 'complete', status: 'completed', submittedAt: now, endedAt: now }, now);
      model.get(id)!.status = 'completed';
    } else if (model.size > 0) {
      const id = pick([...model.keys()]);
      await store.transaction((tx) => tx.withdrawals.deleteSessions([id], now));
      model.delete(id);
    }
    if (step % 10 === 9) await expectCounts(store, model, `${idPrefix}, step ${step}`);
  }
  await expectCounts(store, model, `${idPrefix}, at the end`);
}

const stores: Store[] = [];
/** Data folders createTestStoreTarget made; the ones this file makes come from tempFolder(). */
const folders: string[] = [];
const tempFolder = tempFolders('tandem-balance-');
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of folders.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function opened(engine: StoreEngine, label: string): Promise<{ store: Store; target: string }> {
  const t = await createTestStoreTarget(engine, label);
  folders.push(t.dataDir);
  const store = await openStore(t);
  stores.push(store);
  for (const id of STUDIES) await store.studies.upsertLoaded(id, id, 'hash', 'live', 1);
  return { store, target: t.databaseUrl ?? path.join(t.dataDir, DATABASE_FILE_NAME) };
}

describe.each(STORE_ENGINES)('balance counts (%s)', (engine) => {
  it('equal the sessions counted one by one through inserts, consents, step changes, declines, completions and withdrawals', async () => {
    const { store } = await opened(engine, `balance ${engine}`);
    await churn(store, new Map(), 26, 240, 's');
  }, 60_000);

  it('are rebuilt on a db:copy --force target from the copied sessions, not added to what the target held', async () => {
    const source = await opened(engine, `balance source ${engine}`);
    const model = new Map<string, Modelled>();
    await churn(source.store, model, 7, 80, 'copied');
    await source.store.close();
    stores.splice(stores.indexOf(source.store), 1);
    // The target, on the other engine when both are tested, already holds consented sessions of the same studies.
    const other = STORE_ENGINES.find((e) => e !== engine) ?? engine;
    const target = await opened(other, `balance target ${other}`);
    await churn(target.store, new Map(), 8, 60, 'replaced');
    await target.store.close();
    stores.splice(stores.indexOf(target.store), 1);

    const report = await copyDatabase({ from: source.target, to: target.target, force: true });
    expect(report.replacedRows).toBeGreaterThan(0);
    const onPostgres = other === 'postgres';
    const dataDir = onPostgres ? tempFolder() : path.dirname(target.target);
    const copied = await openStore({ dataDir, databaseUrl: onPostgres ? target.target : undefined });
    stores.push(copied);
    await expectCounts(copied, model, 'after db:copy --force');
  }, 60_000);
});

// A database at 034: study a has consented, unconsented, pilot and declined-after-consent sessions; study b one.
const AT_034: ReadonlyArray<[id: string, study: string, condition: string, task: string, pilot: number, consentedAt: number | null, status: string]> = [
  ['a1', 'st-a', 'c1', 't1', 0, 5, 'active'],
  ['a2', 'st-a', 'c1', 't2', 0, 6, 'completed'],
  ['a3', 'st-a', 'c2', 't1', 0, 7, 'declined'],
  ['a4', 'st-a', 'c2', 't1', 0, null, 'active'],
  ['a5', 'st-a', 'c3', 't2', 1, 8, 'active'],
  ['b1', 'st-b', 'c1', 't1', 0, 9, 'active'],
];
const FILLED = [
  ['st-a', 'condition', 'c1', 2],
  ['st-a', 'condition', 'c2', 1],
  ['st-a', 'task', 't1', 2],
  ['st-a', 'task', 't2', 1],
  ['st-b', 'condition', 'c1', 1],
  ['st-b', 'task', 't1', 1],
];
const insertStudy = `INSERT INTO studies (id, title, status, definition_hash, created_at, updated_at) VALUES ('st-a', 'A', 'live', 'h', 1, 1), ('st-b', 'B', 'live', 'h', 1, 1)`;
const insertSession = (p: (i: number) => string) =>
  `INSERT INTO sessions (id, study_id, condition_id, task_id, is_pilot, consented_at, status, step, created_at, updated_at)
   VALUES (${[1, 2, 3, 4, 5, 6, 7].map(p).join(', ')}, 'instructions', 1, 1)`;
const filledRows = 'SELECT study_id, dimension, option_id, consented FROM balance_counts ORDER BY study_id, dimension, option_id';

describe('migration 035 (balance counts)', () => {
  it('fills balance_counts from the consented non-pilot sessions of a SQLite database at 034', () => {
    const dir = tempFolder();
    const db = openDatabase(path.join(dir, 'db.sqlite'));
    try {
      migrate(db, migrationsUpTo(MIGRATIONS_DIR, 34, tempFolder()));
      db.prepare(insertStudy).run();
      for (const row of AT_034) db.prepare(insertSession(() => '?')).run(...row);
      expect(migrate(db, MIGRATIONS_DIR)).toContain(35);
      expect(db.prepare(filledRows).raw().all()).toEqual(FILLED);
    } finally {
      db.close();
    }
  });

  it.runIf(STORE_ENGINES.includes('postgres'))('fills it the same on PostgreSQL', async () => {
    const pool = new pg.Pool({ connectionString: await createTestDatabaseUrl('migration 035') });
    try {
      await migratePostgres(pool, migrationsUpTo(POSTGRES_MIGRATIONS_DIR, 34, tempFolder()));
      await pool.query(insertStudy);
      for (const row of AT_034) await pool.query(insertSession((i) => `$${i}`), [...row]);
      expect(await migratePostgres(pool)).toContain(35);
      expect((await pool.query({ text: filledRows, rowMode: 'array' })).rows).toEqual(FILLED);
    } finally {
      await pool.end();
    }
  });
});

describe.runIf(STORE_ENGINES.includes('postgres'))('balance counts under concurrent writers (postgres)', () => {
  it('a withdrawal of several sessions waits for a consent that holds a count, instead of deadlocking with it', async () => {
    const t = await createTestStoreTarget('postgres', 'balance locks');
    folders.push(t.dataDir);
    const store = await openStore(t);
    stores.push(store);
    await store.studies.upsertLoaded('study', 'Study', 'hash', 'live', 1);
    // x and z, one person's two sessions, cross each other's condition and task; w is someone else's.
    const rows = [['x', 'c1', 't2'], ['z', 'c2', 't1'], ['w', 'c2', 't2']] as const;
    for (const [id, conditionId, taskId] of rows) {
      await store.sessions.insert({ id, studyId: 'study', conditionId, taskId, isPilot: false, createdAt: 1 });
      await store.sessions.update(id, { step: 'instructions', consentedAt: 2 }, 2);
    }
    const pool = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    const consent = await pool.connect();
    try {
      // A consent's trigger locks its condition's count, then its task's: the first half held here.
      await consent.query('BEGIN');
      await consent.query("UPDATE balance_counts SET consented = consented WHERE study_id = 'study' AND dimension = 'condition' AND option_id = 'c2'");
      const withdrawal = store.transaction((tx) => tx.withdrawals.deleteSessions(['x', 'z'], 3)).then(
        (n) => ({ n }),
        (error: unknown) => ({ error: String(error) }),
      );
      // Backends of this test's database only: other files share the cluster.
      const waiting = async () =>
        (await pool.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0]!.n;
      for (let i = 0; i < 200 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await waiting(), 'the withdrawal waits for a lock').toBeGreaterThan(0);
      // The second half: a withdrawal that had taken x's task count (t2) before reaching z's condition (c2) deadlocks here.
      await consent.query("UPDATE balance_counts SET consented = consented WHERE study_id = 'study' AND dimension = 'task' AND option_id = 't2'");
      await consent.query('COMMIT');
      expect(await withdrawal).toEqual({ n: 2 });
    } finally {
      consent.release();
      await pool.end();
    }
    expect(await store.sessions.countByCondition('study', 0)).toEqual(new Map([['c2', 1]]));
    expect(await store.sessions.countByTask('study', 0)).toEqual(new Map([['t2', 1]]));
  }, 30_000);
});
