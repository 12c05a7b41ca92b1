/**
 * Numbered PostgreSQL migrations: lib/storage/postgres/migrations/NNN_name.sql, the twins (same number and
 * name) of the SQLite ones in lib/storage/sqlite/migrations/. Applied at start-up under a session-level advisory lock,
 * so several nodes starting at once apply each migration exactly once (the others wait, then find it done).
 * Each migration runs in its own transaction together with its schema_migrations row.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { listMigrations, type Migration } from '../sqlite/migrate';
import { SCHEMA_SQL } from '../sql/schema';

export const POSTGRES_MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Arbitrary constant naming "Tandem schema migration" among the database's advisory locks. */
const MIGRATION_LOCK_KEY = 7_311_012;

export type PostgresMigration = Migration;

/** Lists NNN_name.sql files in numeric order (the same rules as SQLite's list, lib/storage/sqlite/migrate.ts). */
export function listPostgresMigrations(dir = POSTGRES_MIGRATIONS_DIR): PostgresMigration[] {
  return listMigrations(dir);
}

/** Applies every migration not yet applied; returns the versions applied by this call. */
export async function migratePostgres(pool: pg.Pool, dir = POSTGRES_MIGRATIONS_DIR): Promise<number[]> {
  const migrations = listPostgresMigrations(dir);
  const client = await pool.connect();
  let locked = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    locked = true;
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const applied = new Set((await client.query<{ version: number }>(SCHEMA_SQL.appliedVersions.postgres)).rows.map((r) => r.version));
    const done: number[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      const sql = fs.readFileSync(m.file, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(SCHEMA_SQL.recordMigration.postgres, [m.version, m.name, Date.now()]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`PostgreSQL migration ${path.basename(m.file)} failed: ${(err as Error).message}`);
      }
      done.push(m.version);
    }
    return done;
  } finally {
    if (locked) await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

/** Versions recorded in schema_migrations, ascending (empty before the first migration). */
export async function appliedPostgresVersions(pool: pg.Pool): Promise<number[]> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass('schema_migrations') AS t");
  if (!exists.rows[0]?.t) return [];
  return (await pool.query<{ version: number }>(SCHEMA_SQL.appliedVersions.postgres)).rows.map((r) => r.version);
}

/**
 * Differences between the SQLite migrations (lib/storage/sqlite/migrations/) and their PostgreSQL twins: every number
 * must exist on both engines with the same name, so both schemas end at the same version. Empty when in step.
 */
export function migrationTwinProblems(sqliteDir: string, postgresDir = POSTGRES_MIGRATIONS_DIR): string[] {
  const sqlite = new Map(listPostgresMigrations(sqliteDir).map((m) => [m.version, m]));
  const postgres = new Map(listPostgresMigrations(postgresDir).map((m) => [m.version, m]));
  const problems: string[] = [];
  for (const [v, m] of sqlite) {
    const twin = postgres.get(v);
    if (!twin) problems.push(`${path.basename(m.file)} has no PostgreSQL twin in ${postgresDir}`);
    else if (twin.name !== m.name) problems.push(`migration ${v} is ${path.basename(m.file)} on SQLite but ${path.basename(twin.file)} on PostgreSQL`);
  }
  for (const [v, m] of postgres) if (!sqlite.has(v)) problems.push(`${path.basename(m.file)} has no SQLite twin in ${sqliteDir}`);
  return problems;
}
