/**
 * Migration 007 gives each survey answer its place in its submit. Answers stored before it (listed then by rowid on
 * SQLite, by ctid on PostgreSQL: their insertion order, the order answered) keep that order afterwards.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl } from '../../tests/support/postgresTestDatabase';
import { STORE_ENGINES } from '../../tests/support/testStores';
import { migrate, MIGRATIONS_DIR } from './sqlite/migrate';
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from './postgres/migrate';

/** A copy of a migrations folder with only the migrations before 007. */
function migrationsBefore007(dir: string): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-before-007-'));
  for (const f of fs.readdirSync(dir)) if (Number(f.slice(0, 3)) < 7) fs.copyFileSync(path.join(dir, f), path.join(out, f));
  return out;
}

// Two submits of one session, and one of another, each answered out of item-id order.
const SETUP = [
  "INSERT INTO studies (id, title, status, definition_hash, created_at, updated_at) VALUES ('st', 'S', 'live', 'h', 1, 1)",
  "INSERT INTO sessions (id, study_id, task_id, condition_id, step, status, is_pilot, created_at, updated_at) VALUES ('a', 'st', 't', 'c', 'survey', 'active', 0, 1, 1)",
  "INSERT INTO sessions (id, study_id, task_id, condition_id, step, status, is_pilot, created_at, updated_at) VALUES ('b', 'st', 't', 'c', 'survey', 'active', 0, 1, 1)",
  `INSERT INTO survey_answers (session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at) VALUES
     ('a', 'post', 'speed', 'likert', 3, NULL, 4, 9), ('a', 'post', 'clarity', 'likert', 4, NULL, 4, 9), ('a', 'post', 'ease', 'likert', 5, NULL, 4, 9)`,
  `INSERT INTO survey_answers (session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at) VALUES
     ('b', 'post', 'zeal', 'likert', 1, NULL, 2, 9), ('b', 'post', 'aim', 'likert', 2, NULL, 2, 9)`,
  `INSERT INTO survey_answers (session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at) VALUES
     ('a', 'later', 'notes', 'text', NULL, 'ok', 7, 10), ('a', 'later', 'again', 'likert', 2, NULL, 7, 10)`,
];
const LIST = 'SELECT session_id, item_id, answer_order FROM survey_answers ORDER BY session_id, event_seq, answer_order, item_id';
const EXPECTED = [
  { session_id: 'a', item_id: 'speed', answer_order: 0 },
  { session_id: 'a', item_id: 'clarity', answer_order: 1 },
  { session_id: 'a', item_id: 'ease', answer_order: 2 },
  { session_id: 'a', item_id: 'notes', answer_order: 0 },
  { session_id: 'a', item_id: 'again', answer_order: 1 },
  { session_id: 'b', item_id: 'zeal', answer_order: 0 },
  { session_id: 'b', item_id: 'aim', answer_order: 1 },
];

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

describe('migration 007 (survey answer order)', () => {
  it('numbers the answers stored before it in the order they were inserted, per submit (SQLite)', () => {
    const db = new Database(':memory:');
    migrate(db, migrationsBefore007(MIGRATIONS_DIR));
    for (const sql of SETUP) db.exec(sql);
    migrate(db);
    expect(db.prepare(LIST).all()).toEqual(EXPECTED);
    db.close();
  });

  it.runIf(STORE_ENGINES.includes('postgres'))('numbers the answers stored before it in the order they were inserted, per submit (PostgreSQL)', async () => {
    const pool = new pg.Pool({ connectionString: await createTestDatabaseUrl('answer order'), max: 1 });
    pools.push(pool);
    await migratePostgres(pool, migrationsBefore007(POSTGRES_MIGRATIONS_DIR));
    for (const sql of SETUP) await pool.query(sql);
    await migratePostgres(pool);
    expect((await pool.query(LIST)).rows).toEqual(EXPECTED);
  });
});
