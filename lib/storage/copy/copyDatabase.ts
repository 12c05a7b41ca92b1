/**
 * Copies a whole study database from one store to another, either engine to either engine
 * (`npm run db:copy -- --from <sqlite file | postgres url> --to <…>`): a pilot run on a laptop moves to the
 * lab's server, or back. Both sides are opened through openStoreAt first (which applies pending migrations),
 * and must then be at the same schema version. The target is written in ONE transaction: its row counts and
 * per-table content hashes (tableHash.ts) are compared with the source's before COMMIT, so a copy that does
 * not verify leaves the target as it was. A non-empty target is refused unless `force` (then it is emptied
 * in that same transaction).
 */
import fs from 'node:fs';
import path from 'node:path';
import { isPostgresUrl, openStoreAt } from '../openStore';
import type { StoreTable } from '../contract/store';
import type { CopyEndpoint } from './endpoint';
import { PostgresCopyEndpoint } from './postgresEndpoint';
import { SqliteCopyEndpoint } from './sqliteEndpoint';
import { TableHasher } from './tableHash';
import { COPY_TABLES, type TableSpec } from './tables';

export interface CopyOptions {
  from: string;
  to: string;
  /** Replace the target's rows when it is not empty. */
  force?: boolean;
  /** Called after each batch: rows copied so far of `total`. */
  onProgress?: (p: { table: StoreTable; copied: number; total: number }) => void;
}

export interface TableReport {
  table: StoreTable;
  rows: number;
  /** SHA-256 of the table's canonical rows, equal on source and target. */
  sha256: string;
}

export interface CopyReport {
  from: string;
  to: string;
  schemaVersion: number;
  tables: TableReport[];
  /** Rows the target held before (non-zero only with force). */
  replacedRows: number;
}

/** A refusal or a failed verification: `message` is what the CLI prints; nothing was changed in the target. */
export class CopyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CopyError';
  }
}

const describe = (target: string): string => (isPostgresUrl(target) ? new URL(target).host + new URL(target).pathname : path.resolve(target));

function endpointFor(target: string): CopyEndpoint {
  return isPostgresUrl(target) ? new PostgresCopyEndpoint(target) : new SqliteCopyEndpoint(path.resolve(target));
}

/** Migrates both sides through the store and returns each side's schema version and total rows per table. */
async function prepare(target: string): Promise<{ version: number; rows: Record<StoreTable, number> }> {
  const store = await openStoreAt(target);
  try {
    return { version: await store.schemaVersion(), rows: await store.countRows() };
  } finally {
    await store.close();
  }
}

export async function copyDatabase(options: CopyOptions): Promise<CopyReport> {
  const { from, to } = options;
  if (describe(from) === describe(to)) throw new CopyError(`--from and --to name the same database (${describe(from)})`);
  if (!isPostgresUrl(from) && !fs.existsSync(path.resolve(from))) throw new CopyError(`--from: no SQLite file at ${path.resolve(from)}`);

  const source = await prepare(from);
  const target = await prepare(to);
  if (source.version !== target.version) {
    throw new CopyError(`schema versions differ: ${describe(from)} is at ${source.version}, ${describe(to)} at ${target.version} (update the older side's code first)`);
  }
  const occupied = COPY_TABLES.filter((t) => target.rows[t.name] > 0);
  const replacedRows = occupied.reduce((n, t) => n + target.rows[t.name], 0);
  if (occupied.length && !options.force) {
    const list = occupied.map((t) => `${t.name}: ${target.rows[t.name]}`).join(', ');
    throw new CopyError(`the target ${describe(to)} is not empty (${list}); pass --force to replace its contents`);
  }

  const src = endpointFor(from);
  const dst = endpointFor(to);
  try {
    await src.beginRead();
    await dst.beginWrite();
    if (occupied.length) await dst.clear(COPY_TABLES.map((t) => t.name));

    const plan: Array<{ spec: TableSpec; columns: string[] }> = [];
    for (const spec of COPY_TABLES) {
      const columns = await src.columns(spec.name);
      const targetColumns = await dst.columns(spec.name);
      if (columns.join(',') !== targetColumns.join(',')) {
        throw new CopyError(`table ${spec.name} has columns (${columns.join(', ')}) in the source but (${targetColumns.join(', ')}) in the target`);
      }
      plan.push({ spec, columns });
    }

    for (const { spec, columns } of plan) {
      const total = await src.count(spec.name);
      let copied = 0;
      options.onProgress?.({ table: spec.name, copied, total });
      for await (const batch of src.scan(spec.name, columns)) {
        await dst.insert(spec.name, columns, batch);
        copied += batch.length;
        options.onProgress?.({ table: spec.name, copied, total });
      }
      if (spec.identity) await dst.syncIdentity(spec.name, spec.identity);
    }

    // Verify inside the target's transaction (it reads its own uncommitted rows); any difference rolls back.
    const tables: TableReport[] = [];
    const mismatches: string[] = [];
    for (const { spec, columns } of plan) {
      const [a, b] = [await hashTable(src, spec, columns), await hashTable(dst, spec, columns)];
      if (a.rows !== b.rows) mismatches.push(`${spec.name}: ${a.rows} rows in the source, ${b.rows} in the target`);
      else if (a.sha256 !== b.sha256) mismatches.push(`${spec.name}: content hash ${a.sha256.slice(0, 12)}… in the source, ${b.sha256.slice(0, 12)}… in the target`);
      tables.push({ table: spec.name, rows: a.rows, sha256: a.sha256 });
    }
    if (mismatches.length) throw new CopyError(`the copy does not verify, nothing was written: ${mismatches.join('; ')}`);

    await dst.finish(true);
    await src.finish(false);
    return { from: describe(from), to: describe(to), schemaVersion: source.version, tables, replacedRows };
  } catch (err) {
    await dst.finish(false).catch(() => undefined);
    throw err;
  } finally {
    await src.close();
    await dst.close();
  }
}

/** Row count and content hash of one table of one side (rows in primary-key order). */
export async function hashTable(side: CopyEndpoint, spec: TableSpec, columns: readonly string[]): Promise<{ rows: number; sha256: string }> {
  const hasher = new TableHasher(columns);
  for await (const batch of side.scanByKey(spec.name, columns, spec.primaryKey)) for (const row of batch) hasher.add(row);
  return { rows: hasher.rows, sha256: hasher.digest() };
}
