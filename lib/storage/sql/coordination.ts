/** Cluster coordination (reply_leases) and researcher-in-the-loop replies (reply_reviews) on both engines. */
import { both, postgresOnly, variant } from './engineSql';

export const REPLY_LEASE_SQL = {
  /** Parameters: session, reply, reply_to, owner node, incarnation, started_at, heartbeat_at. */
  acquire: both(`INSERT INTO reply_leases (session_id, reply_id, reply_to, owner_node, owner_incarnation, started_at, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING`),
  /**
   * The owner's heartbeat over its leases (parameters: now, node, incarnation, reply ids: SQLite a JSON array,
   * PostgreSQL a text[]). PostgreSQL skips rows another transaction holds locked (FOR UPDATE SKIP LOCKED) and
   * answers them as last committed (see PgReplyLeases.heartbeat); SQLite's transaction gate leaves nothing locked to
   * skip. The ids are joined from unnest(), never matched with IN (set-returning function) or joined to a CTE: on a
   * fresh table (no statistics) those planned as nested loops over every lease, 66 ms for 400 leases, against 8 ms.
   */
  heartbeat: variant('json', {
    sqlite: `UPDATE reply_leases SET heartbeat_at = ?
        WHERE owner_node = ? AND owner_incarnation = ? AND reply_id IN (SELECT value FROM json_each(?))
        RETURNING reply_id, stop_requested`,
    postgres: `WITH wanted AS (
         SELECT l.reply_id, l.stop_requested FROM unnest($4::text[]) AS ids(reply_id) JOIN reply_leases l ON l.reply_id = ids.reply_id
          WHERE l.owner_node = $2 AND l.owner_incarnation = $3),
       free AS (
         SELECT l.reply_id FROM unnest($4::text[]) AS ids(reply_id) JOIN reply_leases l ON l.reply_id = ids.reply_id
          WHERE l.owner_node = $2 AND l.owner_incarnation = $3
          FOR UPDATE OF l SKIP LOCKED),
       refreshed AS (
         UPDATE reply_leases l SET heartbeat_at = $1 FROM free WHERE l.reply_id = free.reply_id
         RETURNING l.reply_id, l.stop_requested)
       SELECT reply_id, stop_requested FROM refreshed
       UNION ALL
       SELECT reply_id, stop_requested FROM wanted WHERE reply_id NOT IN (SELECT reply_id FROM refreshed)`,
  }),
  /** Parameters: node, incarnation, now, reply. */
  transfer: variant('boolean', {
    sqlite: 'UPDATE reply_leases SET owner_node = ?, owner_incarnation = ?, heartbeat_at = ?, stop_requested = 0 WHERE reply_id = ?',
    postgres: 'UPDATE reply_leases SET owner_node = $1, owner_incarnation = $2, heartbeat_at = $3, stop_requested = false WHERE reply_id = $4',
  }),
  /** Parameters: session, reply or null, the same once more (SQLite's `?` are positional). */
  requestStop: variant('boolean', {
    sqlite: 'UPDATE reply_leases SET stop_requested = 1 WHERE session_id = ? AND (? IS NULL OR reply_id = ?) RETURNING reply_id',
    postgres: 'UPDATE reply_leases SET stop_requested = true WHERE session_id = $1 AND ($2::text IS NULL OR reply_id = $3) RETURNING reply_id',
  }),
  release: both('DELETE FROM reply_leases WHERE reply_id = ?'),
  getBySession: both('SELECT * FROM reply_leases WHERE session_id = ?'),
  getByReply: both('SELECT * FROM reply_leases WHERE reply_id = ?'),
  /** Inside a PostgreSQL transaction: the lease row locked until COMMIT. (SQLite: getByReply, under the gate.) */
  lockByReply: postgresOnly('row lock', 'SELECT * FROM reply_leases WHERE reply_id = $1 FOR UPDATE'),
  /** Parameters: stale before, node, incarnation. */
  listTakeoverCandidates: both(`SELECT * FROM reply_leases WHERE heartbeat_at <= ? OR (owner_node = ? AND owner_incarnation <> ?)
          ORDER BY started_at, reply_id`),
  list: both('SELECT * FROM reply_leases ORDER BY started_at, reply_id'),
} as const;
