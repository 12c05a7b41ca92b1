/**
 * The node-postgres pool and the two ways repositories run SQL on it:
 * - `PoolRunner`: each call takes a pooled connection for one statement (its own implicit transaction);
 * - `ClientRunner`: every call on one checked-out client, inside that client's BEGIN … COMMIT.
 * Both convert connection failures into StoreUnavailableError (retryable) and use named prepared statements
 * (prepared once per connection; preparing dominates small queries, as on SQLite).
 */
import pg from 'pg';
import { isConnectionError, toStoreError } from './errors';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Type parsers of this pool only (never pg's global ones): BIGINT (ms timestamps, identity ids, COUNT(*))
 * as a JS number. Every value the schema holds fits in 2^53; a larger one is an error, not a silent rounding.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) {
      return (value: string): number => {
        const n = Number(value);
        if (oid === INT8_OID && !Number.isSafeInteger(n)) throw new Error(`BIGINT ${value} does not fit in a JS number`);
        return n;
      };
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as unknown as pg.CustomTypesConfig;

export interface PoolOptions {
  /** Connections at most (default 10, or ?max= / PGPOOL_MAX). */
  max?: number;
  /** Called for errors of idle connections (the server restarted); they are dropped and replaced. */
  onIdleError?: (err: Error) => void;
}

export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? (Number(process.env.PGPOOL_MAX) || 10),
    idleTimeoutMillis: 30_000,
    // Waiting for a free pooled connection or for a server that does not answer: after 10 s the caller gets
    // StoreUnavailableError (retryable) rather than hanging. (A refused connection fails at once.)
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    types,
  });
  // Without a listener an idle connection cut by a server restart would crash the process.
  pool.on('error', (err) => options.onIdleError?.(err));
  return pool;
}

/** A statement parameter; an array is sent as a PostgreSQL array (node-postgres's array literal, null as NULL). */
type Param = string | number | boolean | null | Buffer | readonly (string | number | null)[];

/** What repositories need: rows of a statement, or the number of rows it changed. */
export interface Runner {
  rows<T>(sql: string, params?: readonly Param[]): Promise<T[]>;
  one<T>(sql: string, params?: readonly Param[]): Promise<T | undefined>;
  /** Runs a statement; resolves with the number of rows it inserted/updated/deleted. */
  run(sql: string, params?: readonly Param[]): Promise<number>;
  /** True when calls run inside one transaction (row locks taken then last until COMMIT). */
  readonly inTransaction: boolean;
  /** Runs fn atomically: in the current transaction, or (on the pool) in a transaction of its own. */
  atomic<T>(fn: (r: Runner) => Promise<T>): Promise<T>;
}

const statementNames = new Map<string, string>();
/** A stable name per SQL text, so every connection prepares a statement once and reuses it. */
function prepared(sql: string, params: readonly Param[] | undefined): pg.QueryConfig {
  let name = statementNames.get(sql);
  if (!name) {
    name = `tandem_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return { name, text: sql, values: params ? [...params] : [] };
}

abstract class BaseRunner implements Runner {
  abstract readonly inTransaction: boolean;
  abstract atomic<T>(fn: (r: Runner) => Promise<T>): Promise<T>;
  protected abstract exec(config: pg.QueryConfig): Promise<pg.QueryResult>;

  async rows<T>(sql: string, params?: readonly Param[]): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }
  async one<T>(sql: string, params?: readonly Param[]): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }
  async run(sql: string, params?: readonly Param[]): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }
  private async query(sql: string, params?: readonly Param[]): Promise<pg.QueryResult> {
    try {
      return await this.exec(prepared(sql, params));
    } catch (err) {
      throw toStoreError(err, sql.trim().split(/\s+/, 1)[0]!.toLowerCase());
    }
  }
}

export class PoolRunner extends BaseRunner {
  readonly inTransaction = false;
  constructor(private readonly pool: pg.Pool) {
    super();
  }
  protected exec(config: pg.QueryConfig): Promise<pg.QueryResult> {
    return this.pool.query(config);
  }
  atomic<T>(fn: (r: Runner) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, (client) => fn(new ClientRunner(client)));
  }
}

export class ClientRunner extends BaseRunner {
  readonly inTransaction = true;
  constructor(private readonly client: pg.PoolClient) {
    super();
  }
  protected exec(config: pg.QueryConfig): Promise<pg.QueryResult> {
    return this.client.query(config);
  }
  atomic<T>(fn: (r: Runner) => Promise<T>): Promise<T> {
    return fn(this);
  }
}

/**
 * Checks out one client and hands it to fn, with an error listener for as long as it is out (a connection
 * cut while checked out emits 'error' on the client; unhandled, that would crash the process). A client whose
 * connection broke is destroyed on release instead of going back to the pool.
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw toStoreError(err, 'connect');
  }
  let broken: Error | undefined;
  const onError = (err: Error): void => {
    broken = err;
  };
  client.on('error', onError);
  try {
    return await fn(client);
  } catch (err) {
    if (!broken && isConnectionError(err)) broken = err as Error;
    throw toStoreError(err, 'query');
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/**
 * BEGIN … COMMIT on one client (READ COMMITTED: the exactly-once decisions rest on unique constraints and
 * row locks, see tandem_append_event and messages.insertIfNewClientId). fn's rejection rolls back and is
 * rethrown. A COMMIT that PostgreSQL turned into ROLLBACK (an earlier statement failed and fn swallowed the
 * error) is an error too, never a silent loss.
 */
export function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    let result: T;
    try {
      result = await fn(client);
    } catch (err) {
      if (!isConnectionError(err)) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    const commit = await client.query('COMMIT');
    if (commit.command === 'ROLLBACK') throw new Error('the transaction was rolled back: a statement in it failed earlier');
    return result;
  });
}
