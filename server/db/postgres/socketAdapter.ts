/**
 * @socket.io/postgres-adapter on the store's PostgreSQL (SOCKET_ADAPTER=postgres; server/cluster/socketAdapter.ts).
 * It lives here because it needs a pg pool of its own: one connection held for LISTEN, a couple for NOTIFY.
 * Payloads over NOTIFY's 8000-byte limit go through the adapter's attachment table, created here if missing
 * (transport scratch, swept by the adapter every 30 s; not part of the study schema or its migrations).
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
  const pool = createPool(url, { max: 4, onIdleError: onError });
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
