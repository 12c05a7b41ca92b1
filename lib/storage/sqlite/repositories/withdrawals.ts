import type { SqliteDatabase } from '../database';
import type { WithdrawalRow, WithdrawalsRepo } from '../../contract/store';
import { toTombstoneSet, withdrawalValues } from '../../rows/withdrawals';
import type { Sync } from '../sync';

/**
 * Withdrawal of a participant (migration 020): finds their sessions by platform id, deletes them
 * (every science table cascades from sessions), and keeps a tombstone (keyed HMAC, no personal data).
 */
export class WithdrawalsRepository implements Sync<WithdrawalsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Session ids of the platform user in the study (the identity table is the only place that links them). */
  findSessionIds(studyId: string, platformUserId: string): string[] {
    const rows = this.db
      .prepare('SELECT session_id FROM identities WHERE study_id = ? AND platform_user_id = ? ORDER BY created_at')
      .all(studyId, platformUserId.trim()) as { session_id: string }[];
    return rows.map((r) => r.session_id);
  }

  /** Upload storage paths (relative to the data dir) of these sessions, to delete the files after the rows. */
  uploadPaths(sessionIds: readonly string[]): string[] {
    const stmt = this.db.prepare('SELECT storage_path FROM uploads WHERE session_id = ?');
    return sessionIds.flatMap((id) => (stmt.all(id) as { storage_path: string }[]).map((r) => r.storage_path));
  }

  /** Deletes the sessions and (by cascade) all their rows in every table. Call inside a transaction. */
  deleteSessions(sessionIds: readonly string[]): number {
    const stmt = this.db.prepare('DELETE FROM sessions WHERE id = ?');
    let n = 0;
    for (const id of sessionIds) n += stmt.run(id).changes;
    return n;
  }

  /** Records the tombstone; a second withdrawal of the same person adds to the deleted count. */
  recordTombstone(w: WithdrawalRow): void {
    this.db
      .prepare(
        `INSERT INTO withdrawals (study_id, tombstone, withdrawn_at, deleted_sessions, actor) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(study_id, tombstone) DO UPDATE SET deleted_sessions = withdrawals.deleted_sessions + excluded.deleted_sessions,
           withdrawn_at = excluded.withdrawn_at, actor = excluded.actor`,
      )
      .run(...withdrawalValues(w));
  }

  tombstones(studyId: string): Set<string> {
    const rows = this.db.prepare('SELECT tombstone FROM withdrawals WHERE study_id = ?').all(studyId) as { tombstone: string }[];
    return toTombstoneSet(rows);
  }

  isWithdrawn(studyId: string, tombstone: string): boolean {
    return this.db.prepare('SELECT 1 FROM withdrawals WHERE study_id = ? AND tombstone = ?').get(studyId, tombstone) !== undefined;
  }

  count(studyId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM withdrawals WHERE study_id = ?').get(studyId) as { n: number }).n;
  }
}
