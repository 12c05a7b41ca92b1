import type pg from 'pg';
import type { LockedRun, NamedLocks } from '../contract/locks';
import { withClient } from './connection';

/** Arbitrary constant naming "Tandem periodic job" among the database's (int4, int4) advisory locks. */
const JOB_LOCK_NAMESPACE = 7_311_013;

/**
 * Named locks as session-level advisory locks (contract in ../lockTypes.ts): the lock is taken with
 * pg_try_advisory_lock on a connection that stays checked out for the run and is unlocked before that
 * connection goes back to the pool. If the connection dies PostgreSQL drops the lock (a dead node never
 * keeps one). fn itself runs on the store's other connections.
 */
export class PgNamedLocks implements NamedLocks {
  constructor(private readonly pool: pg.Pool) {}

  tryRun<T>(name: string, fn: () => Promise<T>): Promise<LockedRun<T>> {
    return withClient(this.pool, async (client) => {
      const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [JOB_LOCK_NAMESPACE, name]);
      if (got.rows[0]?.ok !== true) return { ran: false };
      try {
        return { ran: true, value: await fn() };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [JOB_LOCK_NAMESPACE, name]);
      }
    });
  }
}
