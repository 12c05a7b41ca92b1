import type { LockedRun, NamedLocks } from '../contract/locks';

/**
 * Named locks of the SQLite store (contract in ../lockTypes.ts). SQLite serves one node, so there is no other
 * node to exclude: the lock only keeps two runs of the same job in this process from overlapping.
 */
export class InProcessLocks implements NamedLocks {
  private readonly held = new Set<string>();

  async tryRun<T>(name: string, fn: () => Promise<T>): Promise<LockedRun<T>> {
    if (this.held.has(name)) return { ran: false };
    this.held.add(name);
    try {
      return { ran: true, value: await fn() };
    } finally {
      this.held.delete(name);
    }
  }
}
