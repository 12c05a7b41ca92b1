import type { ReplyProgressRepo, ReplyProgressRow, ReplyProgressWrite } from '../../contract/store';
import { toReplyProgress, type ReplyProgressPartRaw, type ReplyProgressRaw } from '../../rows/replyProgress';
import { REPLY_PROGRESS_SQL } from '../../sql/participants';
import type { Runner } from '../connection';

/** Crash checkpoints of streaming replies (reply_progress and its parts): the due checkpoints of all replies in one statement. */
export class PgReplyProgress implements ReplyProgressRepo {
  constructor(private readonly db: Runner) {}

  save(p: ReplyProgressRow): Promise<void> {
    return this.saveMany([p]);
  }

  async saveMany(rows: readonly ReplyProgressWrite[]): Promise<void> {
    if (rows.length === 0) return;
    const records = rows.map((p) => ({
      reply_id: p.replyId, session_id: p.sessionId, text: p.text, provider: p.provider, first_delta_at: p.firstDeltaAt, updated_at: p.updatedAt, text_from: p.textFrom ?? 0,
    }));
    await this.db.run(REPLY_PROGRESS_SQL.saveMany.postgres, [JSON.stringify(records)]);
  }

  async get(replyId: string): Promise<ReplyProgressRow | undefined> {
    const r = await this.db.one<ReplyProgressRaw>(REPLY_PROGRESS_SQL.get.postgres, [replyId]);
    return r && toReplyProgress(r, await this.db.rows<ReplyProgressPartRaw>(REPLY_PROGRESS_SQL.parts.postgres, [replyId]));
  }

  async delete(replyId: string): Promise<void> {
    await this.db.run(REPLY_PROGRESS_SQL.delete.postgres, [replyId]);
  }

  deleteStored(): Promise<number> {
    return this.db.run(REPLY_PROGRESS_SQL.deleteStored.postgres);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>(REPLY_PROGRESS_SQL.count.postgres))!.n;
  }
}
