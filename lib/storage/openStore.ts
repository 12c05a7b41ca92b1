/**
 * The one entry that opens the store and selects the engine:
 *   DATABASE_URL=postgres://…  → PostgreSQL (lib/storage/postgres/, node-postgres pool)
 *   otherwise                  → SQLite at <DATA_DIR>/tandem.sqlite (the embedded default)
 * Either way pending migrations are applied before the store is returned.
 */
import path from 'node:path';
import type { Store } from './contract/store';
import { openSqliteStore } from './sqlite/sqliteStore';

export const DATABASE_FILE_NAME = 'tandem.sqlite';

export interface StoreConfig {
  /** Data folder: holds tandem.sqlite (SQLite engine), uploads, the pseudonym key. */
  dataDir: string;
  /** postgres://… or postgresql://… selects PostgreSQL; undefined or empty selects SQLite. */
  databaseUrl?: string | undefined;
}

/** The store config from the environment: DATABASE_URL (optional) beside the given data folder. */
export function storeConfigFromEnv(dataDir: string, env: NodeJS.ProcessEnv = process.env): StoreConfig {
  return { dataDir, databaseUrl: env.DATABASE_URL };
}

export function isPostgresUrl(url: string | undefined): boolean {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/** The store a `--from`/`--to`/`--db` argument names: a postgres:// URL or a SQLite file path. */
export async function openStoreAt(target: string): Promise<Store> {
  if (isPostgresUrl(target)) return openPostgres(target);
  return openSqliteStore(path.resolve(target));
}

export async function openStore(config: StoreConfig): Promise<Store> {
  const url = config.databaseUrl?.trim();
  if (url) {
    if (!isPostgresUrl(url)) throw new Error(`DATABASE_URL must start with postgres:// or postgresql://, got "${url.split(':')[0] ?? ''}:…"`);
    return openPostgres(url);
  }
  return openSqliteStore(path.resolve(config.dataDir, DATABASE_FILE_NAME));
}

// The PostgreSQL engine is loaded only when a postgres URL is given, so SQLite-only runs never load `pg`.
async function openPostgres(url: string): Promise<Store> {
  const mod = await import('./postgres/index');
  return mod.openPostgresStore(url);
}
