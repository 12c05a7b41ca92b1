import { inReplyIdOrder, toReplyLease, type RawReplyLease } from '../../rows/coordination';
import type { HeldLease, LeaseOwner, ReplyLeaseRow, ReplyLeasesRepo } from '../../contract/leases';
import { REPLY_LEASE_SQL } from '../../sql/coordination';
import type { Runner } from '../connection';

/**
 * Reply leases (table reply_leases; contract in ../../leaseTypes.ts). Every decision rests on a row lock or
 * the primary key: acquire's ON CONFLICT waits for a concurrent insert of the same session to commit or roll
 * back; a takeover's SELECT … FOR UPDATE and the owner's heartbeat UPDATE serialise on the lease row.
 */
export class PgReplyLeases implements ReplyLeasesRepo {
  constructor(private readonly db: Runner) {}

  async acquire(l: Omit<ReplyLeaseRow, 'ownerNode' | 'ownerIncarnation' | 'heartbeatAt' | 'stopRequested'> & { owner: LeaseOwner }): Promise<boolean> {
    return (await this.db.run(REPLY_LEASE_SQL.acquire.postgres, [l.sessionId, l.replyId, l.replyTo, l.owner.node, l.owner.incarnation, l.startedAt, l.startedAt])) === 1;
  }

  /**
   * Rows another transaction has locked (a reply's final transaction deleting its lease, a takeover deciding,
   * a Stop setting the flag) are skipped rather than waited for: a wait held this statement's locks on every
   * other lease meanwhile, and the releases queued behind it (a convoy of 100–370 ms at 500 participants,
   * BENCHMARKS.md "Session 6"). A skipped lease is answered from the committed row as it was (still held, its
   * stop flag as last committed); the next heartbeat sees what that transaction decided.
   */
  async heartbeat(owner: LeaseOwner, replyIds: readonly string[], now: number): Promise<HeldLease[]> {
    if (replyIds.length === 0) return [];
    const rows = await this.db.rows<{ reply_id: string; stop_requested: boolean }>(REPLY_LEASE_SQL.heartbeat.postgres, [now, owner.node, owner.incarnation, replyIds]);
    return inReplyIdOrder(rows.map((r) => ({ replyId: r.reply_id, stopRequested: r.stop_requested })));
  }

  async transfer(replyId: string, owner: LeaseOwner, now: number): Promise<boolean> {
    return (await this.db.run(REPLY_LEASE_SQL.transfer.postgres, [owner.node, owner.incarnation, now, replyId])) === 1;
  }

  async requestStop(sessionId: string, replyId?: string): Promise<string | null> {
    return (await this.db.one<{ reply_id: string }>(REPLY_LEASE_SQL.requestStop.postgres, [sessionId, replyId ?? null, replyId ?? null]))?.reply_id ?? null;
  }

  async release(replyId: string): Promise<boolean> {
    return (await this.db.run(REPLY_LEASE_SQL.release.postgres, [replyId])) === 1;
  }

  async getBySession(sessionId: string): Promise<ReplyLeaseRow | undefined> {
    const r = await this.db.one<RawReplyLease>(REPLY_LEASE_SQL.getBySession.postgres, [sessionId]);
    return r && toReplyLease(r);
  }

  /** Inside a transaction the row stays locked until COMMIT; outside one a lock would end with the statement. */
  async getForUpdate(replyId: string): Promise<ReplyLeaseRow | undefined> {
    const r = await this.db.one<RawReplyLease>((this.db.inTransaction ? REPLY_LEASE_SQL.lockByReply : REPLY_LEASE_SQL.getByReply).postgres, [replyId]);
    return r && toReplyLease(r);
  }

  async listTakeoverCandidates(staleBefore: number, owner: LeaseOwner): Promise<ReplyLeaseRow[]> {
    return (await this.db.rows<RawReplyLease>(REPLY_LEASE_SQL.listTakeoverCandidates.postgres, [staleBefore, owner.node, owner.incarnation])).map(toReplyLease);
  }

  async list(): Promise<ReplyLeaseRow[]> {
    return (await this.db.rows<RawReplyLease>(REPLY_LEASE_SQL.list.postgres)).map(toReplyLease);
  }
}
