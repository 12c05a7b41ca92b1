import type { WithdrawalRow, WithdrawalsRepo } from '../../contract/store';
import { toTombstoneSet, withdrawalValues } from '../../rows/withdrawals';
import { WITHDRAWAL_SQL } from '../../sql/admin';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/**
 * Withdrawal of a participant (migration 020): finds their sessions by platform id, deletes them
 * (every science table cascades from sessions), and keeps a tombstone (keyed HMAC, no personal data).
 */
export class WithdrawalsRepository extends SqliteRepository implements Sync<WithdrawalsRepo> {
  /** Session ids of the platform user in the study (the identity table is the only place that links them). */
  findSessionIds(studyId: string, platformUserId: string): string[] {
    return this.q.rows<{ session_id: string }>(WITHDRAWAL_SQL.findSessionIds, studyId, platformUserId.trim()).map((r) => r.session_id);
  }

  /** Upload storage paths (relative to the data dir) of these sessions, to delete the files after the rows. */
  uploadPaths(sessionIds: readonly string[]): string[] {
    return sessionIds.flatMap((id) => this.q.rows<{ storage_path: string }>(WITHDRAWAL_SQL.uploadPaths, id).map((r) => r.storage_path));
  }

  /** Deletes the sessions and (by cascade) all their rows in every table. Call inside a transaction. */
  deleteSessions(sessionIds: readonly string[]): number {
    let n = 0;
    for (const id of sessionIds) n += this.q.run(WITHDRAWAL_SQL.deleteSession, id);
    return n;
  }

  /** Records the tombstone; a second withdrawal of the same person adds to the deleted count. */
  recordTombstone(w: WithdrawalRow): void {
    this.q.run(WITHDRAWAL_SQL.recordTombstone, ...withdrawalValues(w));
  }

  tombstones(studyId: string): Set<string> {
    return toTombstoneSet(this.q.rows<{ tombstone: string }>(WITHDRAWAL_SQL.tombstones, studyId));
  }

  isWithdrawn(studyId: string, tombstone: string): boolean {
    return this.q.one(WITHDRAWAL_SQL.isWithdrawn, studyId, tombstone) !== undefined;
  }

  count(studyId: string): number {
    return this.q.one<{ n: number }>(WITHDRAWAL_SQL.count, studyId)!.n;
  }
}
