/**
 * The `messages` row as both engines return it (JSON columns as TEXT, interrupted as 0/1 on both), its mapping,
 * and the insert's columns and values.
 */
import type { MessageStatus } from '../../../common/session';
import type { MessageRow } from '../contract/store';

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

export const toMessageRow = (r: MessageRaw): MessageRow => ({
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

/** The columns of a message row, in the order of `messageValues`. */
export const MESSAGE_COLUMNS = ['id', 'session_id', 'event_seq', 'role', 'text', 'client_id', 'reply_to', 'status', 'tokens', 'provider', 'provider_url',
  'model', 'requested_model', 'params', 'usage', 'ttft_ms', 'duration_ms', 'finish_reason', 'interrupted', 'attempts', 'error', 'created_at'] as const;

/** The insert's values in MESSAGE_COLUMNS order. */
export const messageValues = (m: MessageRow): (string | number | null)[] => [
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
  const v = messageValues(m);
  return JSON.stringify(Object.fromEntries(MESSAGE_COLUMNS.map((c, i) => [c, v[i]])));
};
