import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl } from '../../../tests/support/postgresTestDatabase';
import { migrate, MIGRATIONS_DIR } from '../sqlite/migrate';
import { STORE_TABLES } from '../contract/store';
import { appliedPostgresVersions, listPostgresMigrations, migratePostgres, migrationTwinProblems, POSTGRES_MIGRATIONS_DIR } from './migrate';
import { postgresSchema, schemaTwinProblems, sqliteSchema } from '../schemaTwins';

const pools: pg.Pool[] = [];
const newPool = (url: string) => {
  const p = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(p);
  return p;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

function migratedSqlite(): Database.Database {
  const db = new Database(':memory:');
  migrate(db);
  return db;
}

describe('PostgreSQL migrations', () => {
  it('twin every SQLite migration by number and name', () => {
    expect(migrationTwinProblems(MIGRATIONS_DIR)).toEqual([]);
    expect(listPostgresMigrations().map((m) => `${m.version}_${m.name}`)).toEqual(
      listPostgresMigrations(MIGRATIONS_DIR).map((m) => `${m.version}_${m.name}`),
    );
  });

  it('report a SQLite migration that has no PostgreSQL twin, and a renamed twin', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-twins-'));
    for (const f of fs.readdirSync(MIGRATIONS_DIR)) fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, '099_new_table.sql'), 'CREATE TABLE later (id INTEGER PRIMARY KEY);');
    const [first] = listPostgresMigrations(MIGRATIONS_DIR);
    fs.renameSync(first!.file.replace(MIGRATIONS_DIR, dir), path.join(dir, `${String(first!.version).padStart(3, '0')}_renamed.sql`));
    const problems = migrationTwinProblems(dir, POSTGRES_MIGRATIONS_DIR);
    expect(problems).toContain(`099_new_table.sql has no PostgreSQL twin in ${POSTGRES_MIGRATIONS_DIR}`);
    expect(problems.some((p) => p.includes('_renamed.sql on SQLite but'))).toBe(true);
  });

  it('end at the same versions on both engines, with the same schema: columns, types, defaults, CHECKs, keys, indexes, triggers', async () => {
    const pool = newPool(await createTestDatabaseUrl('migrate same'));
    await migratePostgres(pool);
    const sqlite = migratedSqlite();
    const sqliteVersions = (sqlite.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[]).map((r) => r.version);
    expect(await appliedPostgresVersions(pool)).toEqual(sqliteVersions);

    const s = sqliteSchema(sqlite);
    const p = await postgresSchema(pool);
    // Coordination state (migration 021) is not copied by db:copy, so it is not in STORE_TABLES; its twins match too.
    for (const table of [...STORE_TABLES, 'reply_leases', 'admin_jobs']) expect(s.get(table)?.columns.length, `${table} exists on SQLite`).toBeGreaterThan(0);
    // The comparison sees what it is meant to compare (a catalog query that found nothing would agree trivially).
    expect(s.get('sessions')!.checks).toContain("stepin'consent','instructions','workspace','survey','complete'");
    expect(p.get('judgements')!.checks).toContain('scoreisnullorscore>=1andscore<=5');
    expect(p.get('admin_jobs')!.indexes).toContain("createuniqueindexadmin_jobs_one_runningonadmin_jobskind,study_idwherestate='running'");
    expect(s.get('events')!.triggers).toEqual(['events_no_update before update']);
    expect(p.get('messages')!.foreignKeys).toContain('session_id->sessions.id on delete cascade');
    expect(schemaTwinProblems(s, p)).toEqual([]);
    sqlite.close();
  });

  it('report a column type, default, CHECK, index or trigger that one engine has and the other has not', async () => {
    const pool = newPool(await createTestDatabaseUrl('migrate drift'));
    await migratePostgres(pool);
    const sqlite = migratedSqlite();
    sqlite.exec(`CREATE INDEX sessions_drift ON sessions(task_id);
      CREATE TABLE drift (id INTEGER PRIMARY KEY, flag INTEGER NOT NULL DEFAULT 0 CHECK (flag IN (0, 1)), seen_at INTEGER);`);
    await pool.query(`ALTER TABLE studies ALTER COLUMN status SET DEFAULT 'draft';
      ALTER TABLE messages ADD CONSTRAINT drift_tokens CHECK (tokens >= 0);
      DROP TRIGGER audit_log_no_update ON audit_log;
      CREATE TABLE drift (id BIGINT PRIMARY KEY, flag TEXT NOT NULL DEFAULT '0', seen_at INTEGER)`);
    const problems = schemaTwinProblems(sqliteSchema(sqlite), await postgresSchema(pool));
    expect(problems).toEqual(
      expect.arrayContaining([
        'sessions: indexes createindexsessions_driftonsessionstask_id on SQLite only',
        "studies.status: default 'live' on SQLite, 'draft' on PostgreSQL",
        'messages: checks tokens>=0 on PostgreSQL only',
        'audit_log: triggers audit_log_no_update before update on SQLite only',
        'drift.flag: type INTEGER on SQLite, text on PostgreSQL',
        "drift.flag: default 0 on SQLite, '0' on PostgreSQL",
        "drift: checks flagin0,1 on SQLite only",
        'drift.seen_at: a timestamp as integer on PostgreSQL (BIGINT needed)',
      ]),
    );
    expect(problems).toHaveLength(8);
    sqlite.close();
  });

  it('apply once when several nodes migrate the same database at the same time', async () => {
    const url = await createTestDatabaseUrl('migrate race');
    const results = await Promise.all([migratePostgres(newPool(url)), migratePostgres(newPool(url)), migratePostgres(newPool(url))]);
    const all = listPostgresMigrations().map((m) => m.version);
    // Exactly one node applied the migrations; the others waited on the advisory lock and found them done.
    expect(results.filter((r) => r.length > 0)).toEqual([all]);
    expect(results.filter((r) => r.length === 0)).toHaveLength(2);
    expect(await appliedPostgresVersions(newPool(url))).toEqual(all);
    expect(await migratePostgres(newPool(url))).toEqual([]);
  });

  it('roll back a failing migration entirely and name its file', async () => {
    const url = await createTestDatabaseUrl('migrate fail');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-pgmig-'));
    fs.writeFileSync(path.join(dir, '001_ok.sql'), 'CREATE TABLE a (n int);');
    fs.writeFileSync(path.join(dir, '002_bad.sql'), 'CREATE TABLE b (n int); INSERT INTO nowhere VALUES (1);');
    const pool = newPool(url);
    await expect(migratePostgres(pool, dir)).rejects.toThrow(/PostgreSQL migration 002_bad\.sql failed: relation "nowhere" does not exist/);
    expect(await appliedPostgresVersions(pool)).toEqual([1]);
    expect((await pool.query("SELECT to_regclass('b') AS t")).rows[0].t).toBeNull();
  });
});
