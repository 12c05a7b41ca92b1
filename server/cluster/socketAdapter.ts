import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Namespace, ServerOptions } from 'socket.io';
import { createAdapter as createRedisStreamsAdapter } from '@socket.io/redis-streams-adapter';
import type { ClusterOptions, SocketAdapterKind } from './clusterOptions';
import { openRedis } from './redisConnection';

/** How long a client may be away and still get the events it missed replayed (socket.io connection-state recovery). */
export const RECOVERY_WINDOW_MS = 2 * 60_000;

/**
 * The socket.io adapter this node uses to reach the others' sockets, plus what /healthz reports about it.
 * 'redis': @socket.io/redis-streams-adapter (a stream every node reads; sessions kept in Redis so
 * connection-state recovery works on any node). 'postgres': @socket.io/postgres-adapter (LISTEN/NOTIFY on
 * DATABASE_URL; no recovery). 'none': socket.io's in-process adapter (a single node).
 */
export interface SocketAdapterHandle {
  readonly kind: SocketAdapterKind;
  /** Options for `new Server(http, {...serverOptions})`. */
  readonly serverOptions: Partial<ServerOptions>;
  /** The Redis connection of the adapter (rate limits open their own), when kind is 'redis'. */
  readonly redis?: Redis;
  /** Whether the adapter can reach the other nodes now (always true for 'none'). */
  connected(nsp: Namespace): boolean;
  /** After io.close(): ends the adapter's connections. */
  close(): Promise<void>;
}

export async function openSocketAdapter(options: ClusterOptions, databaseUrl: string | undefined, log: Logger): Promise<SocketAdapterHandle> {
  if (options.adapter === 'redis') {
    const redis = await openRedis(options.redisUrl!, 'socket adapter', log, {
      // The adapter's writes (XADD) wait in ioredis's queue while Redis restarts, instead of failing.
      maxRetriesPerRequest: null,
    });
    return {
      kind: 'redis',
      redis,
      serverOptions: {
        adapter: createRedisStreamsAdapter(redis),
        // skipMiddlewares false: a recovered connection still proves its token (it may have been revoked meanwhile).
        connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_WINDOW_MS, skipMiddlewares: false },
      },
      connected: () => redis.status === 'ready',
      close: async () => {
        redis.disconnect();
      },
    };
  }
  if (options.adapter === 'postgres') {
    const { openPostgresSocketAdapter } = await import('../db/postgres/socketAdapter');
    let lastWarnAt = 0;
    const pg = await openPostgresSocketAdapter(databaseUrl!, (err) => {
      // The adapter reports every failed publish while PostgreSQL is away: one line per 10 s is enough.
      if (Date.now() - lastWarnAt < 10_000) return;
      lastWarnAt = Date.now();
      log.warn({ err: err.message }, 'socket adapter (postgres): PostgreSQL unreachable; retrying');
    });
    return { kind: 'postgres', serverOptions: { adapter: pg.adapter }, connected: (nsp) => pg.listening(nsp), close: () => pg.close() };
  }
  return { kind: 'none', serverOptions: {}, connected: () => true, close: async () => {} };
}
