/** A reply cache in memory, for tests and runs that have no store's cache. */
import type { CachedReply, ModelReplyCache } from '../../../lib/storage';

export function memoryReplyCache(): ModelReplyCache {
  const entries = new Map<string, CachedReply>();
  const links = new Map<string, Set<string>>();
  return {
    get: async (key) => entries.get(key),
    put: async (entry) => void entries.set(entry.key, entry),
    linkSession: async (key, sessionId) => void links.set(sessionId, (links.get(sessionId) ?? new Set()).add(key)),
    forgetSessions: async (ids) => {
      let n = 0;
      for (const id of ids) for (const key of links.get(id) ?? []) if (entries.delete(key)) n++;
      return n;
    },
    count: async () => entries.size,
    close: async () => {},
  };
}
