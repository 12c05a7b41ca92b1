import { toReplyLease, type RawReplyLease } from '../../rows/coordination';
import type { HeldLease, LeaseOwner, ReplyLeaseRow, ReplyLeasesRepo } from '../../contract/leases';
import type { Runner } from '../connection';

/**
 * Reply leases (table reply_leases; contract in ../../leaseTypes.ts). Every decision rests on a row lock or
 * the primary key: acquire's ON CONFLICT waits for a concurrent insert of the same session to commit or roll
 * back; a takeover's SELECT … FOR UPDATE and the owner's heartbeat UPDATE serialise on the lease row.
 */
export class PgReplyLeases implements ReplyLeasesRepo {
  constructor(private readonly db: Runner) {}

  async acquire(l: Omit<ReplyLeaseRow, 'ownerNode' | 'ownerIncarnation' | 'heartbeatAt' | 'stopRequested'> & { owner: LeaseOwner }): Promise<boolean> {
    const n = await this.db.run(
      `INSERT INTO reply_leases (session_id, reply_id, reply_to, owner_node, owner_incarnation, started_at, heartbeat_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (session_id) DO NOTHING`,
      [l.sessionId, l.replyId, l.replyTo, l.owner.node, l.owner.incarnation, l.startedAt],
    );
    return n === 1;
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
    const rows = await this.db.rows<{ reply_id: string; stop_requested: boolean }>(
      `WITH wanted AS (
         SELECT l.reply_id, l.stop_requested FROM reply_leases l
          WHERE l.owner_node = $2 AND l.owner_incarnation = $3 AND l.reply_id IN (SELECT jsonb_array_elements_text($4::jsonb))),
       free AS (
         SELECT l.reply_id FROM reply_leases l JOIN wanted USING (reply_id)
          WHERE l.owner_node = $2 AND l.owner_incarnation = $3
          FOR UPDATE OF l SKIP LOCKED),
       refreshed AS (
         UPDATE reply_leases l SET heartbeat_at = $1 FROM free WHERE l.reply_id = free.reply_id
         RETURNING l.reply_id, l.stop_requested)
       SELECT reply_id, stop_requested FROM refreshed
       UNION ALL
       SELECT reply_id, stop_requested FROM wanted WHERE reply_id NOT IN (SELECT reply_id FROM refreshed)`,
      [now, owner.node, owner.incarnation, JSON.stringify(replyIds)],
    );
    return rows.map((r) => ({ replyId: r.reply_id, stopRequested: r.stop_requested }));
  }

  async transfer(replyId: string, owner: LeaseOwner, now: number): Promise<boolean> {
    const n = await this.db.run(
      'UPDATE reply_leases SET owner_node = $1, owner_incarnation = $2, heartbeat_at = $3, stop_requested = false WHERE reply_id = $4',
      [owner.node, owner.incarnation, now, replyId],
    );
    return n === 1;
  }

  async requestStop(sessionId: string, replyId?: string): Promise<string | null> {
    const r = await this.db.one<{ reply_id: string }>(
      'UPDATE reply_leases SET stop_requested = true WHERE session_id = $1 AND ($2::text IS NULL OR reply_id = $2) RETURNING reply_id',
      [sessionId, replyId ?? null],
    );
    return r?.reply_id ?? null;
  }

  async release(replyId: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM reply_leases WHERE reply_id = $1', [replyId])) === 1;
  }

  async getBySession(sessionId: string): Promise<ReplyLeaseRow | undefined> {
    const r = await this.db.one<RawReplyLease>('SELECT * FROM reply_leases WHERE session_id = $1', [sessionId]);
    return r && toReplyLease(r);
  }

  async getForUpdate(replyId: string): Promise<ReplyLeaseRow | undefined> {
    const lock = this.db.inTransaction ? ' FOR UPDATE' : '';
    const r = await this.db.one<RawReplyLease>(`SELECT * FROM reply_leases WHERE reply_id = $1${lock}`, [replyId]);
    return r && toReplyLease(r);
  }

  async listTakeoverCandidates(staleBefore: number, owner: LeaseOwner): Promise<ReplyLeaseRow[]> {
    const rows = await this.db.rows<RawReplyLease>(
      `SELECT * FROM reply_leases WHERE heartbeat_at <= $1 OR (owner_node = $2 AND owner_incarnation <> $3)
        ORDER BY started_at, reply_id`,
      [staleBefore, owner.node, owner.incarnation],
    );
    return rows.map(toReplyLease);
  }

  async list(): Promise<ReplyLeaseRow[]> {
    return (await this.db.rows<RawReplyLease>('SELECT * FROM reply_leases ORDER BY started_at, reply_id')).map(toReplyLease);
  }
}
