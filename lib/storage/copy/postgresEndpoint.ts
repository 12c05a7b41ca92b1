import type pg from 'pg';
import { createPool } from '../postgres/connection';
import { redactUrl } from '../postgres/errors';
import { valueTuples } from '../postgres/valueTuples';
import type { StoreTable } from '../contract/store';
import { COPY_BATCH, type CopyEndpoint } from './endpoint';
import type { Row } from './tables';

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
/** PostgreSQL accepts at most 65535 bind parameters per statement. */
const MAX_PARAMS = 60_000;

/** A PostgreSQL database as a db:copy source or target: one connection, one transaction, cursors for reads. */
export class PostgresCopyEndpoint implements CopyEndpoint {
  readonly description: string;
  private readonly pool: pg.Pool;
  private client: pg.PoolClient | undefined;
  private cursors = 0;

  constructor(url: string) {
    this.description = redactUrl(url);
    this.pool = createPool(url, { max: 1 });
  }

  private async db(): Promise<pg.PoolClient> {
    if (!this.client) {
      this.client = await this.pool.connect();
      this.client.on('error', () => undefined); // the next query rejects with the reason
    }
    return this.client;
  }

  async beginRead(): Promise<void> {
    const c = await this.db();
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await c.query('SELECT 1'); // the snapshot is taken by the first statement
  }

  async beginWrite(): Promise<void> {
    const c = await this.db();
    await c.query('BEGIN');
    // messages.reply_to is DEFERRABLE (migration 001): checked at COMMIT, so rows may come in any order.
    await c.query('SET CONSTRAINTS ALL DEFERRED');
  }

  async columns(table: StoreTable): Promise<string[]> {
    const r = await (await this.db()).query<{ name: string }>(
      'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
      [table],
    );
    return r.rows.map((c) => c.name);
  }

  async count(table: StoreTable): Promise<number> {
    return (await (await this.db()).query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${ident(table)}`)).rows[0]!.n;
  }

  scan(table: StoreTable, columns: readonly string[]): AsyncIterable<Row[]> {
    // No ORDER BY: a sequential scan returns rows in physical order, which follows insertion order.
    return this.cursor(`SELECT ${columns.map(ident).join(', ')} FROM ${ident(table)}`);
  }

  scanByKey(table: StoreTable, columns: readonly string[], key: readonly string[]): AsyncIterable<Row[]> {
    // Text keys are COLLATE "C" in the schema: byte order, as SQLite's BINARY.
    return this.cursor(`SELECT ${columns.map(ident).join(', ')} FROM ${ident(table)} ORDER BY ${key.map(ident).join(', ')}`);
  }

  private async *cursor(sql: string): AsyncGenerator<Row[]> {
    const c = await this.db();
    const name = `copy_${++this.cursors}`;
    await c.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`);
    try {
      for (;;) {
        const r = await c.query<Row>({ text: `FETCH FORWARD ${COPY_BATCH} FROM ${name}`, rowMode: 'array' });
        if (r.rows.length) yield r.rows;
        if (r.rows.length < COPY_BATCH) break;
      }
    } finally {
      await c.query(`CLOSE ${name}`).catch(() => undefined);
    }
  }

  async clear(tables: readonly StoreTable[]): Promise<void> {
    // CASCADE: state that is not copied but references copied rows (reply_leases → sessions) goes too, as on
    // SQLite, where deleting the sessions cascades to it.
    await (await this.db()).query(`TRUNCATE ${tables.map(ident).join(', ')} RESTART IDENTITY CASCADE`);
  }

  async insert(table: StoreTable, columns: readonly string[], rows: readonly Row[]): Promise<void> {
    const c = await this.db();
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const tuples = valueTuples(chunk);
      await c.query(`INSERT INTO ${ident(table)} (${columns.map(ident).join(', ')}) VALUES ${tuples.sql}`, tuples.values);
    }
  }

  async syncIdentity(table: StoreTable, column: string): Promise<void> {
    // The next generated id follows the highest copied one (or starts at 1 for an empty table).
    await (await this.db()).query(
      `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT MAX(${ident(column)}) FROM ${ident(table)}), 0) + 1, false)`,
      [table, column],
    );
  }

  async finish(commit: boolean): Promise<void> {
    if (!this.client) return;
    const r = await this.client.query(commit ? 'COMMIT' : 'ROLLBACK');
    if (commit && r.command === 'ROLLBACK') throw new Error(`the copy into ${this.description} was rolled back by PostgreSQL`);
  }

  async close(): Promise<void> {
    if (this.client) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      this.client.release();
      this.client = undefined;
    }
    await this.pool.end();
  }
}
