/**
 * The SQLite side of a query written once (../sql/): its `sqlite` text as a prepared statement, cached per
 * connection (cachedStatement), run synchronously. The method names match the PostgreSQL Runner's.
 */
import { cachedStatement, type SqliteDatabase } from './database';

type SqliteText = { readonly sqlite: string };

export class Statements {
  constructor(readonly db: SqliteDatabase) {}

  rows<T>(q: SqliteText, ...params: unknown[]): T[] {
    return cachedStatement(this.db, q.sqlite).all(...params) as T[];
  }

  one<T>(q: SqliteText, ...params: unknown[]): T | undefined {
    return cachedStatement(this.db, q.sqlite).get(...params) as T | undefined;
  }

  /** Runs a statement; returns the number of rows it inserted/updated/deleted. */
  run(q: SqliteText, ...params: unknown[]): number {
    return cachedStatement(this.db, q.sqlite).run(...params).changes;
  }
}

/** What every SQLite repository starts from: its connection and the statements over it. */
export abstract class SqliteRepository {
  protected readonly q: Statements;
  constructor(protected readonly db: SqliteDatabase) {
    this.q = new Statements(db);
  }
}
