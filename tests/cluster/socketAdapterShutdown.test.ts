/**
 * The Redis streams adapter sends some commands without awaiting them: the SET that keeps a disconnecting socket's
 * session for connection-state recovery, and the PUBLISH of a fetchSockets or serverSideEmit. A node that closes its
 * Redis connection while such a command awaits its answer (a shutdown right after sockets dropped) has ioredis
 * reject it ("Connection is closed."); with nobody listening that was an unhandled rejection, which failed a CI run
 * of tests/integration/groupCluster.test.ts. Real Redis, real socket.io server and client.
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { openSocketAdapter } from '../../server/cluster/socketAdapter';
import { redisServerMissing, startRedisServer, type RedisServer } from '../support/redisServer';

const missing = redisServerMissing();

/** Runs `fn` with the process's unhandled rejections collected here instead of by vitest (which would fail the run). */
async function collectingUnhandled(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const others = process.listeners('unhandledRejection');
  process.removeAllListeners('unhandledRejection');
  const mine = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', mine);
  try {
    await fn();
    // Rejections are reported after the microtask queue drains: give them a few turns of the loop.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 20));
  } finally {
    process.off('unhandledRejection', mine);
    for (const l of others) process.on('unhandledRejection', l);
  }
  return seen;
}

describe.skipIf(missing !== null)('the Redis socket adapter at shutdown', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it('leaves no unhandled rejection when it closes with commands still unanswered', async () => {
    const log = createLogger('silent');
    const admin = new Redis(redis.url);
    const handle = await openSocketAdapter({ adapter: 'redis', redisUrl: redis.url }, undefined, log);
    const http = createServer();
    const io = new Server(http, handle.serverOptions);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const dropped = new Promise<void>((resolve) => io.on('connection', (socket) => socket.on('disconnect', () => resolve())));
    const client = connect(url, { transports: ['websocket'], reconnection: false });
    await new Promise<void>((resolve, reject) => {
      client.on('connect', () => resolve());
      client.on('connect_error', reject);
    });
    const unhandled = await collectingUnhandled(async () => {
      // Sent and not answered yet when the connection closes (Redis holds every client's commands for a while): the
      // session SET of a socket whose transport dropped (a recoverable disconnect), and the PUBLISH of a serverSideEmit.
      await admin.call('CLIENT', 'PAUSE', '1000', 'ALL');
      client.io.engine.close();
      await dropped;
      io.serverSideEmit('ping');
      io.close();
      await handle.close();
    });
    expect(unhandled.map((e) => (e as Error).message)).toEqual([]);
    admin.disconnect();
  }, 30_000);
});
