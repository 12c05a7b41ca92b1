import type { PseudonymKeyRepo } from '../../contract/store';
import type { SqliteDatabase } from '../database';
import { cachedStatement } from '../database';

/** The pseudonym key's fingerprint row (contract/pseudonymKey.ts); `run` is the store's way to run a synchronous call. */
export function sqlitePseudonymKey(db: SqliteDatabase, run: <R>(op: () => R) => Promise<R>): PseudonymKeyRepo {
  const read = () => (cachedStatement(db, 'SELECT fingerprint FROM pseudonym_key WHERE id = 1').get() as { fingerprint: string } | undefined)?.fingerprint;
  return {
    fingerprint: () => run(read),
    recordIfAbsent: (fingerprint, now) =>
      run(() => {
        cachedStatement(db, 'INSERT INTO pseudonym_key (id, fingerprint, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING').run(fingerprint, now);
        return read()!;
      }),
  };
}
