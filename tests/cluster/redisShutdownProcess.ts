/**
 * One shutdown of Redis-backed parts with commands still unanswered, in a process of its own, so the unhandled
 * rejections it reports are its own (vitest's workers run many files in one process: another file's late
 * rejection would land in an in-process check). Redis holds every client's commands for a while (CLIENT PAUSE),
 * the scenario closes what it opened, and the process prints `RESULT {"unhandled": [messages]}`.
 *
 *   REDIS_URL=redis://… node … tests/cluster/redisShutdownProcess.ts dropped-socket|namespace|rate-limits
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { io as connect } from 'socket.io-client';
import { createLogger } from '../../lib/logger';
import { openRateLimitStores, windowCounter } from '../../server/cluster/rateLimitStore';
import { openSocketAdapter } from '../../server/cluster/socketAdapter';

const unhandled: string[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason instanceof Error ? reason.message : String(reason)));

const redisUrl = process.env.REDIS_URL!;
const log = createLogger('silent');
const admin = new Redis(redisUrl);
/** Every client's commands wait this long from now (the pause ends on its own). */
const holdCommands = () => admin.call('CLIENT', 'PAUSE', '1000', 'ALL');

/** A socket whose transport dropped (its session SET for recovery) and a serverSideEmit (a PUBLISH), then closed. */
async function droppedSocket(): Promise<void> {
  const handle = await openSocketAdapter({ adapter: 'redis', redisUrl }, undefined, log);
  const http = createServer();
  const io = new Server(http, handle.serverOptions);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const dropped = new Promise<void>((resolve) => io.on('connection', (socket) => socket.on('disconnect', () => resolve())));
  const client = connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    client.on('connect', () => resolve());
    client.on('connect_error', reject);
  });
  await holdCommands();
  client.io.engine.close();
  await dropped;
  io.serverSideEmit('ping');
  io.close();
  await handle.close();
}

/** A namespace opened while commands wait (its channels' SUBSCRIBE), then the server closed. */
async function namespaceOpened(): Promise<void> {
  const handle = await openSocketAdapter({ adapter: 'redis', redisUrl }, undefined, log);
  const io = new Server(createServer(), handle.serverOptions);
  await new Promise((r) => setTimeout(r, 50));
  await holdCommands();
  io.of('/admin');
  await new Promise((r) => setTimeout(r, 50));
  io.close();
  await handle.close();
}

/** A per-session connection counter created while commands wait (its store's script loads), then closed. */
async function rateLimitsOpened(): Promise<void> {
  const stores = await openRateLimitStores(redisUrl, log);
  await holdCommands();
  windowCounter(stores.create('socket-connect'), 5, 60_000, log);
  await new Promise((r) => setTimeout(r, 50));
  await stores.close();
}

const scenarios: Record<string, () => Promise<void>> = { 'dropped-socket': droppedSocket, namespace: namespaceOpened, 'rate-limits': rateLimitsOpened };
const run = scenarios[process.argv[2] ?? ''];
if (!run) throw new Error(`scenario must be one of ${Object.keys(scenarios).join(', ')}, got ${process.argv[2]}`);
await run();
// The held commands are rejected when their connection closes; rejections are reported once the microtask queue
// drains: give them the rest of the pause.
await new Promise((r) => setTimeout(r, 1200));
admin.disconnect();
console.log(`RESULT ${JSON.stringify({ unhandled })}`);
process.exit(0);
