/**
 * The cluster settings a node starts with (REDIS_URL, SOCKET_ADAPTER) and the one line a bad REDIS_URL gives.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { clusterOptionsFromEnv, redactRedisUrl } from '../../server/cluster/clusterOptions';
import { openRedis, RedisConnectError } from '../../server/cluster/redisConnection';
import { createLogger } from '../../lib/logger';

const PG = 'postgres://tandem@127.0.0.1:5432/tandem';

describe('clusterOptionsFromEnv', () => {
  it('defaults to no adapter, and to Redis when REDIS_URL is set', () => {
    expect(clusterOptionsFromEnv({})).toEqual({ adapter: 'none', redisUrl: undefined });
    expect(clusterOptionsFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual({ adapter: 'redis', redisUrl: 'redis://127.0.0.1:6379' });
    expect(clusterOptionsFromEnv({ REDIS_URL: 'redis://r:6379', SOCKET_ADAPTER: 'postgres', DATABASE_URL: PG })).toEqual({ adapter: 'postgres', redisUrl: 'redis://r:6379' });
    expect(clusterOptionsFromEnv({ SOCKET_ADAPTER: 'none', REDIS_URL: 'redis://r:6379' }).adapter).toBe('none');
  });

  it('names the variable that is wrong', () => {
    expect(() => clusterOptionsFromEnv({ SOCKET_ADAPTER: 'kafka' })).toThrow('SOCKET_ADAPTER must be "redis", "postgres" or "none", got "kafka"');
    expect(() => clusterOptionsFromEnv({ SOCKET_ADAPTER: 'redis' })).toThrow('SOCKET_ADAPTER=redis needs REDIS_URL');
    expect(() => clusterOptionsFromEnv({ SOCKET_ADAPTER: 'postgres' })).toThrow('SOCKET_ADAPTER=postgres needs DATABASE_URL');
    expect(() => clusterOptionsFromEnv({ REDIS_URL: 'http://x:6379' })).toThrow('REDIS_URL must start with redis://');
    expect(() => clusterOptionsFromEnv({ REDIS_URL: 'localhost:6379' })).toThrow(/REDIS_URL/);
  });

  it('never prints a Redis password', () => {
    expect(() => clusterOptionsFromEnv({ REDIS_URL: 'http://:s3cret@x:6379' })).toThrow(/:\*\*\*@/);
    expect(redactRedisUrl('redis://user:s3cret@host:6379/0')).toBe('redis://user:***@host:6379/0');
  });
});

describe('openRedis', () => {
  it('rejects a closed port at once with one line naming the host and the reason', async () => {
    const port = await closedPort();
    const started = Date.now();
    const err = await openRedis(`redis://127.0.0.1:${port}`, 'test', createLogger('silent')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisConnectError);
    expect((err as Error).message).toBe(`Cannot reach Redis at 127.0.0.1:${port} (REDIS_URL): connection refused (is redis-server running on that port?)`);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

/** A port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
