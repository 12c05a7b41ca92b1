/**
 * @socket.io/postgres-adapter on the store's PostgreSQL (SOCKET_ADAPTER=postgres; server/cluster/socketAdapter.ts).
 * It lives here because it needs a pg pool of its own: one connection held for LISTEN, a couple for NOTIFY.
 * Payloads over NOTIFY's 8000-byte limit go through the adapter's attachment table, created here if missing
 * (transport scratch, swept by the adapter every 30 s; not part of the study schema or its migrations).
 *
 * The pool has two connections: one held for LISTEN, one for every NOTIFY. socket.io delivers even a local
 * broadcast only after its publish query returns, so with several publishing connections the streamed
 * fragments of a reply overtake each other (the transport test saw reordered deltas on the sending node).
 * One publishing connection keeps them in order (pg queues queries FIFO). Payloads over 8000 bytes take two
 * queries (attachment INSERT, then NOTIFY) and may still be overtaken by a small one sent meanwhile.
 */
import { createAdapter } from '@socket.io/postgres-adapter';
import type { Namespace } from 'socket.io';
import { createPool } from './connection';

const ATTACHMENTS_TABLE = 'socket_io_attachments';

export interface PostgresSocketAdapter {
  adapter: ReturnType<typeof createAdapter>;
  /** True while the adapter's LISTEN connection is up (it reconnects by itself after a restart). */
  listening(nsp: Namespace): boolean;
  close(): Promise<void>;
}

export async function openPostgresSocketAdapter(url: string, onError: (err: Error) => void): Promise<PostgresSocketAdapter> {
  const pool = createPool(url, { max: 2, onIdleError: onError });
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${ATTACHMENTS_TABLE} (id bigserial UNIQUE, created_at timestamptz DEFAULT NOW(), payload bytea)`,
    );
  } catch (err) {
    await pool.end();
    throw err;
  }
  const adapter = createAdapter(pool, { tableName: ATTACHMENTS_TABLE, errorHandler: onError });
  return {
    adapter,
    listening: (nsp) => (nsp.adapter as unknown as { client?: { client?: unknown } }).client?.client !== undefined,
    close: () => pool.end(),
  };
}
