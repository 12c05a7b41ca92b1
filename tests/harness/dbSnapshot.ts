import Database from 'better-sqlite3';

/**
 * Row counts of every table in a Tandem SQLite file, read through a separate read-only connection
 * (WAL lets it read while the server writes). Test-side inspection only: the platform's own code
 * reaches the database through server/db/ alone; this just counts rows for "no row written" checks.
 */
export function countRows(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[];
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      counts[name] = (db.prepare(`SELECT COUNT(*) AS n FROM "${name.replace(/"/g, '""')}"`).get() as { n: number }).n;
    }
    // Trajectory events per type, so a check can ignore the connection events a reconnect writes.
    if (tables.some((t) => t.name === 'events')) {
      for (const r of db.prepare('SELECT type, COUNT(*) AS n FROM events GROUP BY type').all() as { type: string; n: number }[]) {
        counts[`events[${r.type}]`] = r.n;
      }
    }
    return counts;
  } finally {
    db.close();
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
