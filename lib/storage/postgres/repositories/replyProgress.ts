import type { ReplyProgressRepo, ReplyProgressRow } from '../../contract/store';
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

/** Crash checkpoints of streaming replies (table reply_progress): the due checkpoints of all replies in one upsert. */
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

  async saveMany(rows: readonly ReplyProgressRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.run(
      `INSERT INTO reply_progress (reply_id, session_id, text, provider, first_delta_at, updated_at)
       SELECT r.reply_id, r.session_id, r.text, r.provider, r.first_delta_at, r.updated_at
         FROM jsonb_to_recordset($1::jsonb)
              AS r(reply_id TEXT, session_id TEXT, text TEXT, provider TEXT, first_delta_at BIGINT, updated_at BIGINT)
        WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id)
       ON CONFLICT (reply_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
      [
        JSON.stringify(
          rows.map((p) => ({ reply_id: p.replyId, session_id: p.sessionId, text: p.text, provider: p.provider, first_delta_at: p.firstDeltaAt, updated_at: p.updatedAt })),
        ),
      ],
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
