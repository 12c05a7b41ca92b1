import type { MessageStatus } from '../../../../common/session';
import type { MessageRow, MessagesRepo } from '../../contract/store';
import type { Runner } from '../connection';

export interface MessageRaw {
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
export const messageFromRow = (r: MessageRaw): MessageRow => ({
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

/** The columns of a message row, in the order of `values`. */
const COLUMNS = ['id', 'session_id', 'event_seq', 'role', 'text', 'client_id', 'reply_to', 'status', 'tokens', 'provider', 'provider_url',
  'model', 'requested_model', 'params', 'usage', 'ttft_ms', 'duration_ms', 'finish_reason', 'interrupted', 'attempts', 'error', 'created_at'] as const;

const INSERT = `INSERT INTO messages (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

const values = (m: MessageRow) => [
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

/** The message as one JSON object of its columns (for a plpgsql function: json_populate_record(NULL::messages, …)). */
export const messageColumnsJson = (m: MessageRow): string => {
  const v = values(m);
  return JSON.stringify(Object.fromEntries(COLUMNS.map((c, i) => [c, v[i]])));
};

/**
 * The insert plus the per-session storage budget's counter (sessions.storageBytes) in one statement; its
 * row count is the UPDATE's: 1 when the message was inserted, 0 when ON CONFLICT skipped it.
 */
const countingBytes = (insert: string) =>
  `WITH ins AS (${insert} RETURNING session_id, octet_length(text) AS bytes)
   UPDATE sessions SET stored_bytes = sessions.stored_bytes + ins.bytes FROM ins WHERE sessions.id = ins.session_id`;

export class PgMessages implements MessagesRepo {
  constructor(private readonly db: Runner) {}

  async insert(m: MessageRow): Promise<void> {
    await this.db.run(countingBytes(INSERT), values(m));
  }

  /**
   * ON CONFLICT on the (session_id, client_id) unique constraint: a second transaction inserting the same
   * client id waits on the first one's index entry and, once that commits, does nothing (returns false).
   */
  async insertIfNewClientId(m: MessageRow & { clientId: string }): Promise<boolean> {
    return (await this.db.run(countingBytes(`${INSERT} ON CONFLICT (session_id, client_id) DO NOTHING`), values(m))) === 1;
  }

  async get(id: string): Promise<MessageRow | undefined> {
    const r = await this.db.one<MessageRaw>('SELECT * FROM messages WHERE id = $1', [id]);
    return r && messageFromRow(r);
  }

  async findByClientId(sessionId: string, clientId: string): Promise<MessageRow | undefined> {
    const r = await this.db.one<MessageRaw>('SELECT * FROM messages WHERE session_id = $1 AND client_id = $2', [sessionId, clientId]);
    return r && messageFromRow(r);
  }

  async listForSession(sessionId: string): Promise<MessageRow[]> {
    return (await this.db.rows<MessageRaw>('SELECT * FROM messages WHERE session_id = $1 ORDER BY event_seq, created_at, id', [sessionId])).map(messageFromRow);
  }

  async count(sessionId?: string): Promise<number> {
    const r =
      sessionId === undefined
        ? await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM messages')
        : await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM messages WHERE session_id = $1', [sessionId]);
    return r!.n;
  }
}
