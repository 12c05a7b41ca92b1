import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { MemoryStore, type Store as RateLimitStore } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { openRedis } from './redisConnection';

/**
 * Where express-rate-limit keeps its counters, and the per-session socket connection budget too: Redis when
 * REDIS_URL is set, so a limit holds for the whole cluster (a client that the load balancer spreads over three
 * nodes gets the limit once, not three times); process memory otherwise. Each limit has its own key prefix.
 *
 * While Redis is unreachable the counters fail open (every limit uses passOnStoreError): a participant is never
 * refused because of a Redis restart; one warning is logged per outage by the connection.
 */
export interface RateLimitStores {
  readonly shared: boolean;
  /** A fresh store for one limit (pass to rateLimit({store}); express-rate-limit calls its init). */
  create(prefix: string): RateLimitStore;
  close(): Promise<void>;
}

export async function openRateLimitStores(redisUrl: string | undefined, log: Logger): Promise<RateLimitStores> {
  if (!redisUrl) {
    const made: MemoryStore[] = [];
    return {
      shared: false,
      create: () => {
        const store = new MemoryStore();
        made.push(store);
        return store;
      },
      close: async () => {
        for (const store of made) store.shutdown();
      },
    };
  }
  // A connection of its own that refuses commands at once while Redis is away (no queue): the request goes on.
  const redis: Redis = await openRedis(redisUrl, 'rate limits', log, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  return {
    shared: true,
    create: (prefix) =>
      new RedisStore({
        prefix: `tandem:rl:${prefix}:`,
        sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
      }),
    close: async () => {
      redis.disconnect();
    },
  };
}

/**
 * A counter over a rate-limit store, for limits that are not HTTP middleware (socket handshakes):
 * `hit(key)` counts one event and says whether it is within `max` per window. Store errors allow the event.
 */
export function windowCounter(store: RateLimitStore, max: number, windowMs: number, log: Logger): (key: string) => Promise<boolean> {
  // The store loads its scripts at init. A failed init (the node closed, or Redis went away, before the answer) is
  // tried again at the next event; started now, so the first handshake does not wait for it, and observed, so a
  // failure nobody awaits yet is not an unhandled rejection.
  let ready: Promise<void> | undefined;
  const initialised = (): Promise<void> =>
    (ready ??= Promise.resolve(store.init?.({ windowMs } as Parameters<NonNullable<RateLimitStore['init']>>[0])).catch((err: unknown) => {
      ready = undefined;
      throw err;
    }));
  initialised().catch(() => {});
  let warnedAt = 0;
  return async (key) => {
    try {
      await initialised();
      const { totalHits } = await store.increment(key);
      return totalHits <= max;
    } catch (err) {
      if (Date.now() - warnedAt > 10_000) {
        warnedAt = Date.now();
        log.warn({ err: (err as Error).message }, 'rate-limit store unreachable; allowing events meanwhile');
      }
      return true;
    }
  };
}
