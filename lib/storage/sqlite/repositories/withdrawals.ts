import type { WithdrawalRow, WithdrawalsRepo } from '../../contract/store';
import { toTombstoneSet, withdrawalValues } from '../../rows/withdrawals';
import { WITHDRAWAL_SQL } from '../../sql/admin';
import { GROUP_DOC_SQL, GROUP_MEMBER_SQL, GROUP_SQL, GROUP_WITHDRAWAL_COUNT_SQL, GROUP_WITHDRAWAL_SQL } from '../../sql/groups';
import { planGroupWithdrawal } from '../../groupWithdrawal';
import { toGroup, toGroupDocUpdate, toGroupMember, type RawGroup, type RawGroupDocUpdate, type RawGroupMember } from '../../rows/groups';
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

  /**
   * Deletes the sessions and (by cascade) all their rows in every table, after taking each out of its group
   * (../../groupWithdrawal.ts). Call inside a transaction. SQLite overwrites the deleted content with zeros
   * (secure_delete), so it is not left in the file's free pages.
   */
  deleteSessions(sessionIds: readonly string[], now = Date.now()): number {
    this.db.pragma('secure_delete = ON');
    let n = 0;
    for (const id of sessionIds) {
      this.withdrawFromGroups(id, now);
      n += this.q.run(WITHDRAWAL_SQL.deleteSession, id);
    }
    return n;
  }

  private withdrawFromGroups(sessionId: string, now: number): void {
    for (const { group_id: groupId } of this.q.rows<{ group_id: string }>(GROUP_WITHDRAWAL_SQL.groupsOfSession, sessionId, sessionId, sessionId, sessionId)) {
      const member = this.q.one<RawGroupMember>(GROUP_MEMBER_SQL.bySession, sessionId);
      const plan = planGroupWithdrawal(
        sessionId,
        {
          group: toGroup(this.q.one<RawGroup>(GROUP_SQL.get, groupId)!),
          member: member && member.group_id === groupId ? toGroupMember(member) : undefined,
          updates: this.q.rows<RawGroupDocUpdate>(GROUP_DOC_SQL.list, groupId).map(toGroupDocUpdate),
          messages: this.q.one<{ n: number }>(GROUP_WITHDRAWAL_COUNT_SQL.messages, groupId, sessionId)!.n,
          events: this.q.one<{ n: number }>(GROUP_WITHDRAWAL_COUNT_SQL.events, groupId, sessionId)!.n,
        },
        now,
      );
      for (const step of plan) this.q.run(step.q, ...step.params);
    }
    this.q.run(GROUP_WITHDRAWAL_SQL.deleteLobbyEvents, sessionId);
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
