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

  it('end at the same versions on both engines, with the same columns, nullability and primary keys per table', async () => {
    const pool = newPool(await createTestDatabaseUrl('migrate same'));
    await migratePostgres(pool);
    const sqlite = migratedSqlite();
    const sqliteVersions = (sqlite.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[]).map((r) => r.version);
    expect(await appliedPostgresVersions(pool)).toEqual(sqliteVersions);

    // Coordination state (migration 021) is not copied by db:copy, so it is not in STORE_TABLES; its twins match too.
    for (const table of [...STORE_TABLES, 'reply_leases', 'admin_jobs']) {
      const s = (sqlite.prepare(`SELECT name, "notnull" AS nn, pk FROM pragma_table_info(?) ORDER BY cid`).all(table) as { name: string; nn: number; pk: number }[]).map(
        (c) => ({ name: c.name, notNull: c.nn === 1 || c.pk > 0, pk: c.pk > 0 }),
      );
      const p = (
        await pool.query<{ name: string; nullable: string; pk: boolean }>(
          `SELECT c.column_name AS name, c.is_nullable AS nullable,
             EXISTS (SELECT 1 FROM information_schema.key_column_usage k JOIN information_schema.table_constraints t
                       ON t.constraint_name = k.constraint_name AND t.table_name = k.table_name
                     WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name AND k.column_name = c.column_name) AS pk
           FROM information_schema.columns c WHERE c.table_schema = current_schema() AND c.table_name = $1 ORDER BY c.ordinal_position`,
          [table],
        )
      ).rows.map((c) => ({ name: c.name, notNull: c.nullable === 'NO', pk: c.pk }));
      expect(s.length, `${table} exists on SQLite`).toBeGreaterThan(0);
      expect(p, table).toEqual(s);
    }
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
