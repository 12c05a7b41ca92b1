/**
 * Closing the Redis-backed parts of a node while Redis still owes answers leaves no unhandled rejection. ioredis
 * rejects a command awaiting its answer when its connection closes ("Connection is closed."); the streams adapter
 * sends some commands without awaiting them (a dropped socket's session SET, a serverSideEmit's PUBLISH, a
 * namespace's SUBSCRIBE), and the connection counter's store loads its scripts at start. Unobserved, those failed
 * clean-clone CI runs (tests/integration/groupCluster.test.ts, and a file after it in the same worker). Each
 * scenario runs in a child process (tests/cluster/redisShutdownProcess.ts) against a real redis-server, so what
 * it reports is its own.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { openRateLimitStores, windowCounter } from '../../server/cluster/rateLimitStore';
import { redisServerMissing, startRedisServer, type RedisServer } from '../support/redisServer';
import { nodeArgsFor } from '../support/testEntries';

const missing = redisServerMissing();
const ENTRY = new URL('./redisShutdownProcess.ts', import.meta.url);

async function unhandledAfter(scenario: string, redisUrl: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeArgsFor(ENTRY), scenario], { env: { ...process.env, REDIS_URL: redisUrl }, timeout: 30_000 });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`${scenario}: no RESULT line in\n${stdout}`);
  return (JSON.parse(line.slice('RESULT '.length)) as { unhandled: string[] }).unhandled;
}

describe.skipIf(missing !== null)('closing Redis connections with commands unanswered', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it.each([
    ['the socket adapter, after a socket dropped and a serverSideEmit', 'dropped-socket'],
    ['the socket adapter, right after a namespace opened', 'namespace'],
    ['the rate-limit store, right after a connection counter was made', 'rate-limits'],
  ])('%s: no unhandled rejection', async (_what, scenario) => {
    expect(await unhandledAfter(scenario, redis.url)).toEqual([]);
  }, 40_000);

  it('a connection counter made while Redis was away counts once Redis is back (its script load is tried again)', async () => {
    const log = createLogger('silent');
    const stores = await openRateLimitStores(redis.url, log);
    await redis.kill();
    const hit = windowCounter(stores.create('retry-init'), 3, 60_000, log);
    expect(await hit('s')).toBe(true); // fails open while Redis is away
    await redis.start();
    // The connection comes back on its own (ioredis retries every 100 ms–2 s); the counter counts again then.
    let refused = false;
    for (let tries = 0; !refused && tries < 100; tries++) {
      refused = (await Promise.all([hit('t'), hit('t'), hit('t'), hit('t')])).includes(false);
      if (!refused) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused).toBe(true);
    await stores.close();
  }, 40_000);
});
