import type { PseudonymKeyRepo } from '../../contract/store';
import type { SqliteDatabase } from '../database';
import { PSEUDONYM_KEY_SQL } from '../../sql/pseudonymKey';
import { Statements } from '../statements';

/** The pseudonym key's fingerprint row (contract/pseudonymKey.ts); `run` is the store's way to run a synchronous call. */
export function sqlitePseudonymKey(db: SqliteDatabase, run: <R>(op: () => R) => Promise<R>): PseudonymKeyRepo {
  const q = new Statements(db);
  const read = () => q.one<{ fingerprint: string }>(PSEUDONYM_KEY_SQL.fingerprint)?.fingerprint;
  return {
    fingerprint: () => run(read),
    recordIfAbsent: (fingerprint, now) =>
      run(() => {
        q.run(PSEUDONYM_KEY_SQL.recordIfAbsent, fingerprint, now);
        return read()!;
      }),
  };
}
