/**
 * Migration 029 on both engines over a database at 028 that already has lobby entries: each lobby's entries are
 * numbered 1, 2, … by (joined_at, session_id), the order matching used before, and later joins number on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabaseUrl } from '../../tests/support/postgresTestDatabase';
import { openDatabase } from './sqlite/database';
import { migrate, MIGRATIONS_DIR } from './sqlite/migrate';
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from './postgres/migrate';
import { migrationsUpTo } from '../../tests/support/migrationsUpTo';
import { tempFolders } from '../../tests/support/tempFolders';

const tempFolder = tempFolders('tandem-migrations-');

// Lobby c1: s-b and s-a joined at the same ms (so s-a first by session id), s-c later; lobby c2: s-d alone.
const ENTRIES = [
  ['s-c', 'c1', 20],
  ['s-b', 'c1', 10],
  ['s-d', 'c2', 10],
  ['s-a', 'c1', 10],
] as const;
const EXPECTED = [
  ['s-a', 1],
  ['s-b', 2],
  ['s-c', 3],
  ['s-d', 1],
];

const seedSql = (p: (i: number) => string) => ({
  study: `INSERT INTO studies (id, title, status, definition_hash, created_at, updated_at) VALUES ('st', 'St', 'live', 'h', 1, 1)`,
  session: `INSERT INTO sessions (id, study_id, task_id, condition_id, step, status, is_pilot, created_at, updated_at) VALUES (${p(1)}, 'st', 't', ${p(2)}, 'workspace', 'active', 0, 1, 1)`,
  entry: `INSERT INTO lobby_entries (session_id, study_id, condition_id, task_id, joined_at, deadline_at) VALUES (${p(1)}, 'st', ${p(2)}, 't', ${p(3)}, 99)`,
});

describe('migration 029 (lobby arrival numbers)', () => {
  it('numbers the entries of a SQLite database at 028 by (joined_at, session_id) within each lobby', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-029-'));
    const db = openDatabase(path.join(dir, 'db.sqlite'));
    try {
      migrate(db, migrationsUpTo(MIGRATIONS_DIR, 28, tempFolder()));
      const sql = seedSql(() => '?');
      db.prepare(sql.study).run();
      for (const [id, condition, at] of ENTRIES) {
        db.prepare(sql.session).run(id, condition);
        db.prepare(sql.entry).run(id, condition, at);
      }
      expect(migrate(db, MIGRATIONS_DIR)).toContain(29);
      expect(db.prepare('SELECT session_id, arrival_seq FROM lobby_entries ORDER BY session_id').raw().all()).toEqual(EXPECTED);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('numbers them the same on PostgreSQL', async () => {
    const pool = new pg.Pool({ connectionString: await createTestDatabaseUrl('migration 029') });
    try {
      await migratePostgres(pool, migrationsUpTo(POSTGRES_MIGRATIONS_DIR, 28, tempFolder()));
      const sql = seedSql((i) => `$${i}`);
      await pool.query(sql.study);
      for (const [id, condition, at] of ENTRIES) {
        await pool.query(sql.session, [id, condition]);
        await pool.query(sql.entry, [id, condition, at]);
      }
      expect(await migratePostgres(pool)).toContain(29);
      const { rows } = await pool.query({ text: 'SELECT session_id, arrival_seq FROM lobby_entries ORDER BY session_id', rowMode: 'array' });
      expect(rows).toEqual(EXPECTED);
    } finally {
      await pool.end();
    }
  });
});
