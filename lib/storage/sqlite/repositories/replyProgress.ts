import { cachedStatement, type SqliteDatabase } from '../database';
import type { ReplyProgressRepo, ReplyProgressRow } from '../../contract/store';
import type { Sync } from '../sync';

interface Raw {
  reply_id: string;
  session_id: string;
  text: string;
  provider: string | null;
  first_delta_at: number;
  updated_at: number;
}
const toRow = (r: Raw): ReplyProgressRow => ({
  replyId: r.reply_id,
  sessionId: r.session_id,
  text: r.text,
  provider: r.provider,
  firstDeltaAt: r.first_delta_at,
  updatedAt: r.updated_at,
});

/**
 * Crash checkpoints of streaming replies (table reply_progress). One row per reply in flight, overwritten
 * by each checkpoint (the due ones of all replies in one transaction) and removed in the transaction
 * that stores the finished reply. Not part of the trajectory.
 */
export class ReplyProgressRepository implements Sync<ReplyProgressRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Writes (or overwrites) the checkpoint of a reply. `firstDeltaAt` is kept from the first write. */
  save(p: ReplyProgressRow): void {
    cachedStatement(
      this.db,
      `INSERT INTO reply_progress (reply_id, session_id, text, provider, first_delta_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (reply_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
    ).run(p.replyId, p.sessionId, p.text, p.provider, p.firstDeltaAt, p.updatedAt);
  }

  saveMany(rows: readonly ReplyProgressRow[]): void {
    const upsert = cachedStatement(
      this.db,
      `INSERT INTO reply_progress (reply_id, session_id, text, provider, first_delta_at, updated_at)
       SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
       ON CONFLICT (reply_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
    );
    // One commit for the whole batch: on SQLite a commit (its WAL frames) costs more than the statement.
    this.db.transaction(() => {
      for (const p of rows) upsert.run(p.replyId, p.sessionId, p.text, p.provider, p.firstDeltaAt, p.updatedAt, p.sessionId);
    })();
  }

  get(replyId: string): ReplyProgressRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM reply_progress WHERE reply_id = ?').get(replyId) as Raw | undefined;
    return r && toRow(r);
  }

  delete(replyId: string): void {
    cachedStatement(this.db, 'DELETE FROM reply_progress WHERE reply_id = ?').run(replyId);
  }

  /** Removes checkpoints whose reply is already stored (left behind by a crash between the two writes). Returns how many. */
  deleteStored(): number {
    return cachedStatement(this.db, 'DELETE FROM reply_progress WHERE reply_id IN (SELECT id FROM messages)').run().changes;
  }

  count(): number {
    return (cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM reply_progress').get() as { n: number }).n;
  }
}
