import { cachedStatement, type SqliteDatabase } from '../database';
import { toReplyLease, type RawReplyLease } from '../../rows/coordination';
import type { HeldLease, LeaseOwner, ReplyLeaseRow, ReplyLeasesRepo } from '../../contract/leases';
import type { Sync } from '../sync';

/**
 * Reply leases (table reply_leases; contract in ../../leaseTypes.ts). On SQLite one node runs, so the lease
 * guards against a previous incarnation's replies and keeps the same rules as on PostgreSQL. Statements run
 * inside the store's transaction gate, so a read-then-write in one transaction is never interleaved.
 */
export class ReplyLeasesRepository implements Sync<ReplyLeasesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  acquire(l: Omit<ReplyLeaseRow, 'ownerNode' | 'ownerIncarnation' | 'heartbeatAt' | 'stopRequested'> & { owner: LeaseOwner }): boolean {
    return (
      cachedStatement(
        this.db,
        `INSERT INTO reply_leases (session_id, reply_id, reply_to, owner_node, owner_incarnation, started_at, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING`,
      ).run(l.sessionId, l.replyId, l.replyTo, l.owner.node, l.owner.incarnation, l.startedAt, l.startedAt).changes === 1
    );
  }

  heartbeat(owner: LeaseOwner, replyIds: readonly string[], now: number): HeldLease[] {
    if (replyIds.length === 0) return [];
    const rows = cachedStatement(
      this.db,
      `UPDATE reply_leases SET heartbeat_at = ?
        WHERE owner_node = ? AND owner_incarnation = ? AND reply_id IN (SELECT value FROM json_each(?))
        RETURNING reply_id, stop_requested`,
    ).all(now, owner.node, owner.incarnation, JSON.stringify(replyIds)) as { reply_id: string; stop_requested: number }[];
    return rows.map((r) => ({ replyId: r.reply_id, stopRequested: r.stop_requested === 1 }));
  }

  transfer(replyId: string, owner: LeaseOwner, now: number): boolean {
    return (
      cachedStatement(this.db, 'UPDATE reply_leases SET owner_node = ?, owner_incarnation = ?, heartbeat_at = ?, stop_requested = 0 WHERE reply_id = ?').run(
        owner.node,
        owner.incarnation,
        now,
        replyId,
      ).changes === 1
    );
  }

  requestStop(sessionId: string, replyId?: string): string | null {
    const r = cachedStatement(
      this.db,
      'UPDATE reply_leases SET stop_requested = 1 WHERE session_id = ? AND (? IS NULL OR reply_id = ?) RETURNING reply_id',
    ).get(sessionId, replyId ?? null, replyId ?? null) as { reply_id: string } | undefined;
    return r?.reply_id ?? null;
  }

  release(replyId: string): boolean {
    return cachedStatement(this.db, 'DELETE FROM reply_leases WHERE reply_id = ?').run(replyId).changes === 1;
  }

  getBySession(sessionId: string): ReplyLeaseRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM reply_leases WHERE session_id = ?').get(sessionId) as RawReplyLease | undefined;
    return r && toReplyLease(r);
  }

  // The transaction gate already serialises transactions: a plain read is as good as a lock here.
  getForUpdate(replyId: string): ReplyLeaseRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM reply_leases WHERE reply_id = ?').get(replyId) as RawReplyLease | undefined;
    return r && toReplyLease(r);
  }

  listTakeoverCandidates(staleBefore: number, owner: LeaseOwner): ReplyLeaseRow[] {
    return (
      cachedStatement(
        this.db,
        `SELECT * FROM reply_leases WHERE heartbeat_at <= ? OR (owner_node = ? AND owner_incarnation <> ?)
          ORDER BY started_at, reply_id`,
      ).all(staleBefore, owner.node, owner.incarnation) as RawReplyLease[]
    ).map(toReplyLease);
  }

  list(): ReplyLeaseRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM reply_leases ORDER BY started_at, reply_id').all() as RawReplyLease[]).map(toReplyLease);
  }
}
