/**
 * The SQLite side of a query written once (../sql/): its `sqlite` text as a prepared statement, cached per
 * connection, run synchronously. The method names match the PostgreSQL Runner's. Rows are read raw and built
 * by a literal per statement (rowReader.ts), which costs less than better-sqlite3's own row objects.
 */
import { cachedStatement, type SqliteDatabase } from './database';
import { cachedRowReader } from './rowReader';

type SqliteText = { readonly sqlite: string };

export class Statements {
  constructor(readonly db: SqliteDatabase) {}

  rows<T>(q: SqliteText, ...params: unknown[]): T[] {
    const { statement, row } = cachedRowReader(this.db, q.sqlite);
    return (statement.all(...params) as unknown[][]).map(row) as T[];
  }

  one<T>(q: SqliteText, ...params: unknown[]): T | undefined {
    const { statement, row } = cachedRowReader(this.db, q.sqlite);
    const values = statement.get(...params) as unknown[] | undefined;
    return values === undefined ? undefined : (row(values) as T);
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
