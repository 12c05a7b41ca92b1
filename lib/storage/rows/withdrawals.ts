/** The `withdrawals` tombstones (migration 020) as both engines read and write them (the same column types on each). */
import type { WithdrawalRow } from '../contract/store';

/** Insert values in the column order study_id, tombstone, withdrawn_at, deleted_sessions, actor. */
export const withdrawalValues = (w: WithdrawalRow) => [w.studyId, w.tombstone, w.withdrawnAt, w.deletedSessions, w.actor] as const;

/** The set of a study's tombstones from `SELECT tombstone FROM withdrawals …` rows. */
export const toTombstoneSet = (rows: readonly { tombstone: string }[]): Set<string> => new Set(rows.map((r) => r.tombstone));
