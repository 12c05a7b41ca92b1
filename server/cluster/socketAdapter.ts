import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Namespace, ServerOptions } from 'socket.io';
import type { Adapter, BroadcastOptions } from 'socket.io-adapter';
import { createAdapter as createRedisStreamsAdapter } from '@socket.io/redis-streams-adapter';
import type { ClusterOptions, SocketAdapterKind } from './clusterOptions';
import { observingUnawaited } from './observedRedis';
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
        adapter: localWhileAway(createRedisStreamsAdapter(observingUnawaited(redis, log)), () => redis.status === 'ready'),
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
    log.warn('SOCKET_ADAPTER=postgres: measured to delay and reorder streamed replies under load (docs/cluster.md); use redis for studies');
    const { openPostgresSocketAdapter } = await import('../../lib/storage/postgres');
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

// socket.io passes the namespace; its event-map generics do not matter here.
type AdapterFactory = (nsp: any) => Adapter;

/**
 * While Redis is away, act on this node's sockets at once instead of after the publish. socket.io's cluster
 * adapter awaits the publish (XADD) before delivering even locally, and ioredis queues commands until Redis is
 * back: without this, every push on every node would freeze for the length of the outage. A participant's tab
 * is normally on the node that streams its reply, so it sees nothing of a Redis restart; pushes to tabs on
 * other nodes during the outage are lost (they catch up from session:state when they reconnect).
 */
function localWhileAway(factory: AdapterFactory, connected: () => boolean): AdapterFactory {
  const scoped = (opts: BroadcastOptions): BroadcastOptions => (connected() ? opts : { ...opts, flags: { ...opts.flags, local: true } });
  // A function, not an arrow: socket.io calls it with `new` (returning an object from it is what the adapters do).
  return function adapterWithLocalFallback(nsp) {
    const adapter = factory(nsp);
    const { broadcast, addSockets, delSockets, disconnectSockets } = adapter;
    adapter.broadcast = (packet, opts) => broadcast.call(adapter, packet, scoped(opts));
    adapter.addSockets = (opts, rooms) => addSockets.call(adapter, scoped(opts), rooms);
    adapter.delSockets = (opts, rooms) => delSockets.call(adapter, scoped(opts), rooms);
    adapter.disconnectSockets = (opts, close) => disconnectSockets.call(adapter, scoped(opts), close);
    return adapter;
  };
}
