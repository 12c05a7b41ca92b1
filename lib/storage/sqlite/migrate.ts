import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_SQL } from '../sql/schema';
import type { SqliteDatabase } from './database';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface Migration {
  version: number;
  name: string;
  file: string;
}

/**
 * Lists lib/storage/sqlite/migrations/NNN_name.sql in numeric order. Numbers are owned by area:
 * 001–009 participant sessions, 010–019 judge/annotation, 020–029 admin/export.
 * Two files with the same number are an error (they would apply in an arbitrary order).
 */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const found: Migration[] = [];
  for (const file of fs.readdirSync(dir)) {
    if (!file.endsWith('.sql')) continue;
    const m = /^(\d{3})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) throw new Error(`migration file name must look like 001_name.sql: ${path.join(dir, file)}`);
    found.push({ version: Number(m[1]), name: m[2]!, file: path.join(dir, file) });
  }
  found.sort((a, b) => a.version - b.version);
  for (let i = 1; i < found.length; i++) {
    if (found[i]!.version === found[i - 1]!.version)
      throw new Error(`two migrations share number ${found[i]!.version}: ${found[i - 1]!.file} and ${found[i]!.file}`);
  }
  return found;
}

/** Applies every migration not yet applied, each in its own transaction. Returns the versions applied now. */
export function migrate(db: SqliteDatabase, dir = MIGRATIONS_DIR): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(
    (db.prepare(SCHEMA_SQL.appliedVersions.sqlite).all() as { version: number }[]).map((r) => r.version),
  );
  const record = db.prepare(SCHEMA_SQL.recordMigration.sqlite);
  const done: number[] = [];
  for (const m of listMigrations(dir)) {
    if (applied.has(m.version)) continue;
    const sql = fs.readFileSync(m.file, 'utf8');
    db.transaction(() => {
      try {
        db.exec(sql);
      } catch (err) {
        throw new Error(`migration ${path.basename(m.file)} failed: ${(err as Error).message}`);
      }
      record.run(m.version, m.name, Date.now());
    })();
    done.push(m.version);
  }
  return done;
}
