/**
 * For migration tests: a copy of a migrations folder holding only the migrations up to `last`, so that a database can
 * be brought to an older version, given rows, and then migrated on. The copy goes into `into` (a temporary folder).
 */
import fs from 'node:fs';
import path from 'node:path';

export function migrationsUpTo(dir: string, last: number, into: string): string {
  for (const f of fs.readdirSync(dir)) if (/^\d{3}_/.test(f) && Number(f.slice(0, 3)) <= last) fs.copyFileSync(path.join(dir, f), path.join(into, f));
  return into;
}
