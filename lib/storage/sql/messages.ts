/** The `messages` queries of both engines (see engineSql.ts for how a query is written once). */
import { MESSAGE_COLUMNS } from '../rows/messages';
import { both, variant } from './engineSql';

const INSERT = `INSERT INTO messages (${MESSAGE_COLUMNS.join(', ')}) VALUES (${MESSAGE_COLUMNS.map(() => '?').join(', ')})`;
const INSERT_IF_NEW_CLIENT_ID = `${INSERT} ON CONFLICT (session_id, client_id) DO NOTHING`;

/**
 * PostgreSQL: the insert plus the per-session storage budget's counter in one statement; its row count is the
 * UPDATE's (1 when the message was inserted, 0 when ON CONFLICT skipped it). SQLite: the insert alone, then
 * SESSION_SQL.addStoredBytes when it changed a row.
 */
const countingBytes = (insert: string) =>
  variant('RETURNING', {
    sqlite: insert,
    postgres: `WITH ins AS (${both(insert).postgres} RETURNING session_id, octet_length(text) AS bytes)
   UPDATE sessions SET stored_bytes = sessions.stored_bytes + ins.bytes FROM ins WHERE sessions.id = ins.session_id`,
  });

export const MESSAGE_SQL = {
  /** Parameters: messageValues(m). */
  insert: countingBytes(INSERT),
  insertIfNewClientId: countingBytes(INSERT_IF_NEW_CLIENT_ID),
  get: both('SELECT * FROM messages WHERE id = ?'),
  findByClientId: both('SELECT * FROM messages WHERE session_id = ? AND client_id = ?'),
  /** Trajectory order; a message's event_seq is its event's, and ties (none in practice) fall back to time and id. */
  listForSession: both('SELECT * FROM messages WHERE session_id = ? ORDER BY event_seq, created_at, id'),
  countAll: both('SELECT COUNT(*) AS n FROM messages'),
  countInSession: both('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?'),
  /** The participant's messages so far (the message limit of acknowledgeUserMessage; migration 023 counts the same). */
  countUserMessages: both("SELECT COUNT(*) AS n FROM messages WHERE session_id = ? AND role = 'user'"),
} as const;
