import type { ReplyProgressRepo, ReplyProgressRow } from '../../storeInterface';
import type { Runner } from '../connection';

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

/** Crash checkpoints of streaming replies (table reply_progress): a single-row upsert per checkpoint. */
export class PgReplyProgress implements ReplyProgressRepo {
  constructor(private readonly db: Runner) {}

  async save(p: ReplyProgressRow): Promise<void> {
    await this.db.run(
      `INSERT INTO reply_progress (reply_id, session_id, text, provider, first_delta_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (reply_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
      [p.replyId, p.sessionId, p.text, p.provider, p.firstDeltaAt, p.updatedAt],
    );
  }

  async get(replyId: string): Promise<ReplyProgressRow | undefined> {
    const r = await this.db.one<Raw>('SELECT * FROM reply_progress WHERE reply_id = $1', [replyId]);
    return r && toRow(r);
  }

  async delete(replyId: string): Promise<void> {
    await this.db.run('DELETE FROM reply_progress WHERE reply_id = $1', [replyId]);
  }

  deleteStored(): Promise<number> {
    return this.db.run('DELETE FROM reply_progress WHERE reply_id IN (SELECT id FROM messages)');
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM reply_progress'))!.n;
  }
}
