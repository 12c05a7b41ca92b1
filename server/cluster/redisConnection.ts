import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { redactRedisUrl } from './clusterOptions';

/** REDIS_URL could not be reached at start-up; the message is the one line main.ts prints. */
export class RedisConnectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisConnectError';
  }
}

/** Reconnect delays after a lost connection: 100 ms, 200 ms, … capped at 2 s, for ever (Redis restarts come back). */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 2000);

/**
 * Opens a Redis connection and waits until it is ready. A refused or unreachable server rejects with
 * RedisConnectError naming the host and the reason (no stack trace: it is an operator's setting, not a bug).
 * Afterwards a lost connection is retried by ioredis for ever; each loss and recovery is logged once at warn/info.
 * `role` names the connection in logs (the adapter and the rate limits each have their own).
 */
export async function openRedis(url: string, role: string, log: Logger, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, retryStrategy, connectTimeout: 5000, ...options });
  let firstError: Error | undefined;
  let lost = false;
  let wasReady = false; // a failed first connect is reported by the thrown error, not as a lost connection
  // ioredis reports every failed reconnect attempt: keep the first reason of an outage for the one log line.
  client.on('error', (err: Error) => {
    firstError ??= err;
  });
  client.on('close', () => {
    if (!wasReady || lost || client.status === 'end') return;
    lost = true;
    log.warn({ redis: redactRedisUrl(url), role, err: firstError?.message }, 'lost the connection to Redis; reconnecting');
  });
  client.on('ready', () => {
    if (!lost) return;
    lost = false;
    firstError = undefined;
    log.info({ redis: redactRedisUrl(url), role }, 'reconnected to Redis');
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    const reason = firstError ? describeRedisError(firstError) : (err as Error).message;
    throw new RedisConnectError(`Cannot reach Redis at ${redisTarget(url)} (REDIS_URL): ${reason}`);
  }
  wasReady = true;
  firstError = undefined;
  return client;
}

function redisTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return redactRedisUrl(url);
  }
}

function describeRedisError(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused (is redis-server running on that port?)';
  if (code === 'ENOTFOUND') return 'unknown host';
  if (code === 'ETIMEDOUT') return 'no answer (timed out)';
  if (/WRONGPASS|NOAUTH/.test(err.message)) return 'authentication failed (check the password in REDIS_URL)';
  return err.message;
}
