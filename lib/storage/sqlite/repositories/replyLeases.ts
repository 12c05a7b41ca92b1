import { REPLY_LEASE_SQL } from '../../sql/coordination';
import { SqliteRepository } from '../statements';
import { inReplyIdOrder, toReplyLease, type RawReplyLease } from '../../rows/coordination';
import type { HeldLease, LeaseOwner, ReplyLeaseRow, ReplyLeasesRepo } from '../../contract/leases';
import type { Sync } from '../sync';

/**
 * Reply leases (table reply_leases; contract in ../../leaseTypes.ts). On SQLite one node runs, so the lease
 * guards against a previous incarnation's replies and keeps the same rules as on PostgreSQL. Statements run
 * inside the store's transaction gate, so a read-then-write in one transaction is never interleaved.
 */
export class ReplyLeasesRepository extends SqliteRepository implements Sync<ReplyLeasesRepo> {
  acquire(l: Omit<ReplyLeaseRow, 'ownerNode' | 'ownerIncarnation' | 'heartbeatAt' | 'stopRequested'> & { owner: LeaseOwner }): boolean {
    return this.q.run(REPLY_LEASE_SQL.acquire, l.sessionId, l.replyId, l.replyTo, l.owner.node, l.owner.incarnation, l.startedAt, l.startedAt) === 1;
  }

  heartbeat(owner: LeaseOwner, replyIds: readonly string[], now: number): HeldLease[] {
    if (replyIds.length === 0) return [];
    const rows = this.q.rows<{ reply_id: string; stop_requested: number }>(REPLY_LEASE_SQL.heartbeat, now, owner.node, owner.incarnation, JSON.stringify(replyIds));
    return inReplyIdOrder(rows.map((r) => ({ replyId: r.reply_id, stopRequested: r.stop_requested === 1 })));
  }

  transfer(replyId: string, owner: LeaseOwner, now: number): boolean {
    return this.q.run(REPLY_LEASE_SQL.transfer, owner.node, owner.incarnation, now, replyId) === 1;
  }

  requestStop(sessionId: string, replyId?: string): string | null {
    return this.q.one<{ reply_id: string }>(REPLY_LEASE_SQL.requestStop, sessionId, replyId ?? null, replyId ?? null)?.reply_id ?? null;
  }

  release(replyId: string): boolean {
    return this.q.run(REPLY_LEASE_SQL.release, replyId) === 1;
  }

  getBySession(sessionId: string): ReplyLeaseRow | undefined {
    const r = this.q.one<RawReplyLease>(REPLY_LEASE_SQL.getBySession, sessionId);
    return r && toReplyLease(r);
  }

  // The transaction gate already serialises transactions: a plain read is as good as a lock here.
  getForUpdate(replyId: string): ReplyLeaseRow | undefined {
    const r = this.q.one<RawReplyLease>(REPLY_LEASE_SQL.getByReply, replyId);
    return r && toReplyLease(r);
  }

  listTakeoverCandidates(staleBefore: number, owner: LeaseOwner): ReplyLeaseRow[] {
    return this.q.rows<RawReplyLease>(REPLY_LEASE_SQL.listTakeoverCandidates, staleBefore, owner.node, owner.incarnation).map(toReplyLease);
  }

  list(): ReplyLeaseRow[] {
    return this.q.rows<RawReplyLease>(REPLY_LEASE_SQL.list).map(toReplyLease);
  }
}
