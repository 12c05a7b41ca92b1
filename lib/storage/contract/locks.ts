/**
 * Store contract for named locks: periodic jobs (time-limit sweep, reply takeover, abandoned-job sweep) run
 * on one node at a time. PostgreSQL: a session-level pg_try_advisory_lock on a connection held for the
 * run (released by PostgreSQL if that connection dies). SQLite: one node by construction, so the lock
 * only keeps two runs of one process from overlapping.
 */

export type LockedRun<T> = { ran: true; value: T } | { ran: false };

export interface NamedLocks {
  /**
   * Runs fn while holding the cluster-wide lock `name` and resolves with its value; when another node (or
   * another run here) holds it, resolves `{ ran: false }` at once without running fn. fn's rejection
   * propagates (the lock is released first). fn must not rely on the lock for more than mutual exclusion
   * of runs: a lock lost with its connection lets another node start while fn finishes.
   */
  tryRun<T>(name: string, fn: () => Promise<T>): Promise<LockedRun<T>>;
}
