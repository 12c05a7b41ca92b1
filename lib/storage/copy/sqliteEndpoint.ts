import type Database from 'better-sqlite3';
import { openDatabase, type SqliteDatabase } from '../sqlite/database';
import type { StoreTable } from '../contract/store';
import { COPY_BATCH, type CopyEndpoint } from './endpoint';
import type { Row } from './tables';

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** A SQLite file as a db:copy source or target (its own connection, WAL, foreign keys on). */
export class SqliteCopyEndpoint implements CopyEndpoint {
  private readonly db: SqliteDatabase;
  private readonly inserts = new Map<string, Database.Statement>();

  constructor(readonly description: string) {
    this.db = openDatabase(description);
  }

  async beginRead(): Promise<void> {
    this.db.exec('BEGIN');
    this.db.prepare('SELECT COUNT(*) FROM sessions').get(); // pins the WAL snapshot now
  }

  async beginWrite(): Promise<void> {
    this.db.exec('BEGIN IMMEDIATE');
    // Switched off again by SQLite at COMMIT/ROLLBACK; must be set inside the transaction.
    this.db.pragma('defer_foreign_keys = ON');
  }

  async columns(table: StoreTable): Promise<string[]> {
    return (this.db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(table) as { name: string }[]).map((c) => c.name);
  }

  async count(table: StoreTable): Promise<number> {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${ident(table)}`).get() as { n: number }).n;
  }

  scan(table: StoreTable, columns: readonly string[]): AsyncIterable<Row[]> {
    return this.batches(`SELECT ${columns.map(ident).join(', ')} FROM ${ident(table)} ORDER BY rowid`);
  }

  scanByKey(table: StoreTable, columns: readonly string[], key: readonly string[]): AsyncIterable<Row[]> {
    return this.batches(`SELECT ${columns.map(ident).join(', ')} FROM ${ident(table)} ORDER BY ${key.map(ident).join(', ')}`);
  }

  /** Iterates the statement (no full result in memory), handing out COPY_BATCH rows at a time. */
  private async *batches(sql: string): AsyncGenerator<Row[]> {
    let batch: Row[] = [];
    for (const row of this.db.prepare(sql).raw(true).iterate() as IterableIterator<Row>) {
      batch.push(row);
      if (batch.length === COPY_BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }

  async clear(tables: readonly StoreTable[]): Promise<void> {
    for (const t of [...tables].reverse()) this.db.prepare(`DELETE FROM ${ident(t)}`).run();
  }

  async insert(table: StoreTable, columns: readonly string[], rows: readonly Row[]): Promise<void> {
    const sql = `INSERT INTO ${ident(table)} (${columns.map(ident).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    let stmt = this.inserts.get(sql);
    if (!stmt) this.inserts.set(sql, (stmt = this.db.prepare(sql)));
    for (const r of rows) stmt.run(...r);
  }

  async syncIdentity(): Promise<void> {
    // INTEGER PRIMARY KEY rowids continue after the highest id by themselves.
  }

  async finish(commit: boolean): Promise<void> {
    if (this.db.inTransaction) this.db.exec(commit ? 'COMMIT' : 'ROLLBACK');
  }

  async close(): Promise<void> {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    if (this.db.open) this.db.close();
  }
}
