import { openStore, type StoreConfig } from '../../lib/storage';

/**
 * Row counts of every table of a Tandem store, read through a store of its own (SQLite: a second
 * connection, WAL lets it read while the server writes; PostgreSQL: a pool of its own). Test-side
 * inspection for "no row written" checks, through the store interface like everything else.
 */
export async function countRows(target: StoreConfig): Promise<Record<string, number>> {
  const store = await openStore(target);
  try {
    const counts: Record<string, number> = { ...(await store.countRows()) };
    // Trajectory events per type, so a check can ignore the connection events a reconnect writes.
    for (const study of await store.studies.list()) {
      for (const session of await store.sessions.listByStudy(study.id)) {
        for (const e of await store.events.listForSession(session.id)) counts[`events[${e.type}]`] = (counts[`events[${e.type}]`] ?? 0) + 1;
      }
    }
    return counts;
  } finally {
    await store.close();
  }
}

/**
 * Tables (and event types) whose counts differ, as "name: before → after". Names matching `ignore`
 * are skipped; the total `events` count is then recomputed from the per-type counts not ignored.
 */
export function diffCounts(before: Record<string, number>, after: Record<string, number>, ignore?: RegExp): string[] {
  const keep = (n: string) => !(ignore && ignore.test(n)) && !(ignore && n === 'events');
  const names = new Set([...Object.keys(before), ...Object.keys(after)].filter(keep));
  return [...names].filter((n) => (before[n] ?? 0) !== (after[n] ?? 0)).map((n) => `${n}: ${before[n] ?? 0} → ${after[n] ?? 0}`);
}
