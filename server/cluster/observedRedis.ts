import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The commands @socket.io/redis-streams-adapter sends and never awaits: the SET that keeps a disconnecting socket's
 * session for connection-state recovery, the PUBLISH of a fetchSockets or serverSideEmit, and (on the subscriber it
 * duplicates from the client it is given) the SUBSCRIBE of each namespace's channels.
 */
const UNAWAITED_COMMANDS = new Set<string | symbol>(['set', 'publish', 'spublish', 'subscribe', 'ssubscribe']);

/**
 * The Redis client as the streams adapter gets it: every command it sends without awaiting gets a rejection handler,
 * which logs at debug, and so do the clients it duplicates. ioredis rejects a command still awaiting its answer when
 * the connection closes ("Connection is closed."), as it does when a node shuts down right after its sockets dropped
 * or right after it opened a namespace; unobserved, that was an unhandled rejection (it failed clean-clone CI runs;
 * tests/cluster/redisShutdown.test.ts). A caller that awaits the command still gets the error.
 */
export function observingUnawaited(redis: Redis, log: Logger): Redis {
  return new Proxy(redis, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      if (name === 'duplicate') {
        return (...args: unknown[]) => observingUnawaited((value as (...a: unknown[]) => Redis).apply(target, args), log);
      }
      if (!UNAWAITED_COMMANDS.has(name)) return value;
      return (...args: unknown[]) => {
        const sent = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        sent.catch((err: Error) => log.debug({ err: err.message, command: String(name) }, 'socket adapter: a Redis command failed'));
        return sent;
      };
    },
  });
}
