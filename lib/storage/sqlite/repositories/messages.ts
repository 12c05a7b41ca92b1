import { cachedStatement, type SqliteDatabase } from '../database';
import type { MessageStatus } from '../../../../common/session';
import type { MessageRow, MessagesRepo } from '../../contract/store';
import type { Sync } from '../sync';

interface Raw {
  id: string;
  session_id: string;
  event_seq: number;
  role: 'user' | 'assistant';
  text: string;
  client_id: string | null;
  reply_to: string | null;
  status: MessageStatus;
  tokens: number;
  provider: string | null;
  provider_url: string | null;
  model: string | null;
  requested_model: string | null;
  params: string | null;
  usage: string | null;
  ttft_ms: number | null;
  duration_ms: number | null;
  finish_reason: string | null;
  interrupted: number;
  attempts: number | null;
  error: string | null;
  created_at: number;
}
const json = <T>(s: string | null): T | null => (s === null ? null : (JSON.parse(s) as T));
const toRow = (r: Raw): MessageRow => ({
  id: r.id,
  sessionId: r.session_id,
  eventSeq: r.event_seq,
  role: r.role,
  text: r.text,
  clientId: r.client_id,
  replyTo: r.reply_to,
  status: r.status,
  tokens: r.tokens,
  provider: r.provider,
  providerUrl: r.provider_url,
  model: r.model,
  requestedModel: r.requested_model,
  params: json(r.params),
  usage: json(r.usage),
  ttftMs: r.ttft_ms,
  durationMs: r.duration_ms,
  finishReason: r.finish_reason,
  interrupted: r.interrupted === 1,
  attempts: r.attempts,
  error: json(r.error),
  createdAt: r.created_at,
});

const nullableJson = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

/** The insert's values in column order. */
const values = (m: MessageRow): unknown[] => [
  m.id,
  m.sessionId,
  m.eventSeq,
  m.role,
  m.text,
  m.clientId,
  m.replyTo,
  m.status,
  m.tokens,
  m.provider,
  m.providerUrl,
  m.model,
  m.requestedModel,
  nullableJson(m.params),
  nullableJson(m.usage),
  m.ttftMs,
  m.durationMs,
  m.finishReason,
  m.interrupted ? 1 : 0,
  m.attempts,
  nullableJson(m.error),
  m.createdAt,
];

export class MessagesRepository implements Sync<MessagesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(m: MessageRow): void {
    cachedStatement(
      this.db,
      `INSERT INTO messages (id, session_id, event_seq, role, text, client_id, reply_to, status, tokens, provider, provider_url,
         model, requested_model, params, usage, ttft_ms, duration_ms, finish_reason, interrupted, attempts, error, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...values(m));
    this.countBytes(m);
  }

  insertIfNewClientId(m: MessageRow & { clientId: string }): boolean {
    const r = cachedStatement(
      this.db,
      `INSERT INTO messages (id, session_id, event_seq, role, text, client_id, reply_to, status, tokens, provider, provider_url,
         model, requested_model, params, usage, ttft_ms, duration_ms, finish_reason, interrupted, attempts, error, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, client_id) DO NOTHING`,
    ).run(...values(m));
    if (r.changes !== 1) return false;
    this.countBytes(m);
    return true;
  }

  /** The per-session storage budget's counter (sessions.storageBytes). */
  private countBytes(m: MessageRow): void {
    cachedStatement(this.db, 'UPDATE sessions SET stored_bytes = stored_bytes + ? WHERE id = ?').run(Buffer.byteLength(m.text, 'utf8'), m.sessionId);
  }

  get(id: string): MessageRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM messages WHERE id = ?').get(id) as Raw | undefined;
    return r && toRow(r);
  }

  findByClientId(sessionId: string, clientId: string): MessageRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM messages WHERE session_id = ? AND client_id = ?').get(sessionId, clientId) as Raw | undefined;
    return r && toRow(r);
  }

  /** All messages of a session in trajectory order. */
  listForSession(sessionId: string): MessageRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM messages WHERE session_id = ? ORDER BY event_seq').all(sessionId) as Raw[]).map(toRow);
  }

  count(sessionId?: string): number {
    const r = (sessionId === undefined
      ? cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM messages').get()
      : cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM messages WHERE session_id = ?').get(sessionId)) as { n: number };
    return r.n;
  }
}
