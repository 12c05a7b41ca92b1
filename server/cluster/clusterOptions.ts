import { z } from 'zod';
import { isPostgresUrl } from '../../lib/storage';

/**
 * How this node reaches the other nodes of a cluster, from the environment (main.ts):
 *   REDIS_URL        redis://[:password@]host:port[/db] — the socket.io adapter and the shared rate limits;
 *   SOCKET_ADAPTER   redis | postgres | none (default: redis when REDIS_URL is set, none otherwise).
 * `postgres` runs @socket.io/postgres-adapter on DATABASE_URL's PostgreSQL (LISTEN/NOTIFY); it exists for the
 * measured comparison with Redis streams (docs/cluster.md), and has no connection-state recovery.
 * `none` is today's single node: rooms, limits and the monitor are in-process.
 */
export type SocketAdapterKind = 'none' | 'redis' | 'postgres';

export interface ClusterOptions {
  adapter: SocketAdapterKind;
  /** Set with adapter 'redis', and whenever REDIS_URL is given (rate limits use it even with the postgres adapter). */
  redisUrl?: string | undefined;
}

const RedisUrl = z
  .string()
  .url('REDIS_URL must be a URL like redis://host:6379')
  .refine((u) => /^rediss?:$/.test(new URL(u).protocol), 'REDIS_URL must start with redis:// or rediss://');
const AdapterKind = z.enum(['none', 'redis', 'postgres'], { message: 'SOCKET_ADAPTER must be "redis", "postgres" or "none"' });

/** Reads and checks the cluster settings; throws an Error whose message names the variable that is wrong. */
export function clusterOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ClusterOptions {
  const redisRaw = env.REDIS_URL?.trim() || undefined;
  let redisUrl: string | undefined;
  if (redisRaw !== undefined) {
    const parsed = RedisUrl.safeParse(redisRaw);
    if (!parsed.success) throw new Error(`${parsed.error.issues[0]?.message ?? 'REDIS_URL is invalid'} (got "${redactRedisUrl(redisRaw)}")`);
    redisUrl = parsed.data;
  }
  const adapterRaw = env.SOCKET_ADAPTER?.trim() || undefined;
  let adapter: SocketAdapterKind = redisUrl ? 'redis' : 'none';
  if (adapterRaw !== undefined) {
    const parsed = AdapterKind.safeParse(adapterRaw);
    if (!parsed.success) throw new Error(`${parsed.error.issues[0]?.message ?? 'SOCKET_ADAPTER is invalid'}, got "${adapterRaw}"`);
    adapter = parsed.data;
  }
  if (adapter === 'redis' && !redisUrl) throw new Error('SOCKET_ADAPTER=redis needs REDIS_URL (redis://host:6379)');
  if (adapter === 'postgres' && !isPostgresUrl(env.DATABASE_URL))
    throw new Error('SOCKET_ADAPTER=postgres needs DATABASE_URL to be a postgres:// URL (the adapter uses that database)');
  return { adapter, redisUrl };
}

/** The URL without its password, for logs and error lines. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
