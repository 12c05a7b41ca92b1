/**
 * One side of a db:copy, as raw tables: reads in batches from one consistent snapshot, or writes inside one
 * transaction (foreign keys checked at COMMIT, so rows may arrive in any order). One implementation per
 * engine (sqliteEndpoint.ts, postgresEndpoint.ts); this is the only place db:copy touches SQL.
 */
import type { StoreTable } from '../contract/store';
import type { Row } from './tables';

export interface CopyEndpoint {
  /** For messages: the SQLite path or the PostgreSQL URL without its password. */
  readonly description: string;
  /** Starts a read-only snapshot (the source). */
  beginRead(): Promise<void>;
  /** Starts the write transaction (the target); foreign keys are deferred to COMMIT. */
  beginWrite(): Promise<void>;
  /** Column names in schema order. */
  columns(table: StoreTable): Promise<string[]>;
  count(table: StoreTable): Promise<number>;
  /** Rows in storage order (SQLite rowid, PostgreSQL physical order: keeps insertion order), in batches. */
  scan(table: StoreTable, columns: readonly string[]): AsyncIterable<Row[]>;
  /** Rows in primary-key order (byte order of text keys), in batches: for the content hash. */
  scanByKey(table: StoreTable, columns: readonly string[], key: readonly string[]): AsyncIterable<Row[]>;
  /** Deletes every row of these tables (inside the write transaction; --force). */
  clear(tables: readonly StoreTable[]): Promise<void>;
  insert(table: StoreTable, columns: readonly string[], rows: readonly Row[]): Promise<void>;
  /** After the copy: move identity sequences past the copied ids (PostgreSQL; nothing on SQLite). */
  syncIdentity(table: StoreTable, column: string): Promise<void>;
  /** Ends the snapshot or transaction: COMMIT when `commit`, else ROLLBACK. */
  finish(commit: boolean): Promise<void>;
  close(): Promise<void>;
}

/** Rows fetched or inserted per batch. */
export const COPY_BATCH = 500;
