import type { ReplyProgressRepo, ReplyProgressRow, ReplyProgressWrite } from '../../contract/store';
import { toReplyProgress, type ReplyProgressPartRaw, type ReplyProgressRaw } from '../../rows/replyProgress';
import { REPLY_PROGRESS_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/**
 * Crash checkpoints of streaming replies (tables reply_progress and reply_progress_parts). One row per reply in
 * flight, written by its first checkpoint, with a part appended by each later one (the due ones of all replies in one
 * transaction), removed with its parts in the transaction that stores the finished reply. Not part of the trajectory.
 */
export class ReplyProgressRepository extends SqliteRepository implements Sync<ReplyProgressRepo> {
  save(p: ReplyProgressRow): void {
    this.saveMany([p]);
  }

  /**
   * One commit for the whole batch: on SQLite a commit (its WAL frames) costs more than the statement. Made once:
   * better-sqlite3 builds a transaction function's four variants on each db.transaction() call.
   */
  private readonly saveAll = this.db.transaction((rows: readonly ReplyProgressWrite[]) => {
    for (const p of rows) {
      if (p.textFrom) {
        this.q.run(REPLY_PROGRESS_SQL.savePart, p.replyId, p.textFrom, p.text, p.updatedAt, p.replyId);
        continue;
      }
      this.q.run(REPLY_PROGRESS_SQL.saveMany, p.replyId, p.sessionId, p.text, p.provider, p.firstDeltaAt, p.updatedAt, p.sessionId);
      this.q.run(REPLY_PROGRESS_SQL.deleteParts, p.replyId);
    }
  });

  saveMany(rows: readonly ReplyProgressWrite[]): void {
    this.saveAll(rows);
  }

  get(replyId: string): ReplyProgressRow | undefined {
    const r = this.q.one<ReplyProgressRaw>(REPLY_PROGRESS_SQL.get, replyId);
    return r && toReplyProgress(r, this.q.rows<ReplyProgressPartRaw>(REPLY_PROGRESS_SQL.parts, replyId));
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
