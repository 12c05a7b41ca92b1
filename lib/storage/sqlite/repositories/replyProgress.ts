import type { ReplyProgressRepo, ReplyProgressRow } from '../../contract/store';
import { toReplyProgress, type ReplyProgressRaw } from '../../rows/replyProgress';
import { REPLY_PROGRESS_SQL } from '../../sql/participants';
import type { SqliteDatabase } from '../database';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/**
 * Crash checkpoints of streaming replies (table reply_progress). One row per reply in flight, overwritten
 * by each checkpoint (the due ones of all replies in one transaction) and removed in the transaction
 * that stores the finished reply. Not part of the trajectory.
 */
export class ReplyProgressRepository extends SqliteRepository implements Sync<ReplyProgressRepo> {
  /** Writes (or overwrites) the checkpoint of a reply. `firstDeltaAt` is kept from the first write. */
  save(p: ReplyProgressRow): void {
    this.q.run(REPLY_PROGRESS_SQL.save, p.replyId, p.sessionId, p.text, p.provider, p.firstDeltaAt, p.updatedAt);
  }

  saveMany(rows: readonly ReplyProgressRow[]): void {
    // One commit for the whole batch: on SQLite a commit (its WAL frames) costs more than the statement.
    this.db.transaction(() => {
      for (const p of rows) this.q.run(REPLY_PROGRESS_SQL.saveMany, p.replyId, p.sessionId, p.text, p.provider, p.firstDeltaAt, p.updatedAt, p.sessionId);
    })();
  }

  get(replyId: string): ReplyProgressRow | undefined {
    const r = this.q.one<ReplyProgressRaw>(REPLY_PROGRESS_SQL.get, replyId);
    return r && toReplyProgress(r);
  }

  delete(replyId: string): void {
    this.q.run(REPLY_PROGRESS_SQL.delete, replyId);
  }

  /** Removes checkpoints whose reply is already stored (left behind by a crash between the two writes). Returns how many. */
  deleteStored(): number {
    return this.q.run(REPLY_PROGRESS_SQL.deleteStored);
  }

  count(): number {
    return this.q.one<{ n: number }>(REPLY_PROGRESS_SQL.count)!.n;
  }
}
