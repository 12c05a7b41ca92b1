/**
 * npm run db:copy -- --from <sqlite file | postgres url> --to <sqlite file | postgres url> [--force]
 *
 * Copies every table of a Tandem database to another database of either engine (lib/storage/copy/), then
 * checks row counts and a content hash per table before committing. Refuses a target that already holds
 * rows unless --force. Exit codes: 0 copied and verified, 1 refused or failed (target unchanged), 2 bad flags.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PSEUDONYM_KEY_FILE } from '../lib/pseudonym';
import { Presets, SingleBar } from 'cli-progress';
import { z } from 'zod';
import { flagErrors } from '../research/exports/cliSupport';
import { CopyError, copyDatabase } from '../lib/storage';
import { describeStartupError } from '../lib/storage/postgres';

const USAGE = 'usage: npm run db:copy -- --from <sqlite file | postgres url> --to <sqlite file | postgres url> [--force]';

const Location = z
  .string()
  .trim()
  .min(1, 'must be a SQLite file path or a postgres:// URL')
  .refine((v) => /^postgres(ql)?:\/\//i.test(v) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(v), {
    message: 'must be a SQLite file path or a postgres:// (postgresql://) URL',
  });

const Flags = z.object({ from: Location, to: Location, force: z.boolean().default(false) }).strict();

/** Where a database's data folder is: a SQLite file's own folder; for PostgreSQL, the DATA_DIR of the servers using it. */
const dataFolderOf = (location: string) =>
  /^postgres(ql)?:\/\//i.test(location) ? 'the DATA_DIR of every server and command that uses it' : path.dirname(path.resolve(location));

/**
 * The pseudonym key is not in the database (it stays in DATA_DIR/secrets/, lib/pseudonym.ts): the copy names
 * where it must go. The copied fingerprint makes a server or command without that key stop with the same advice.
 */
function pseudonymKeyAdvice(from: string, to: string, hasFingerprint: boolean): string {
  const source = /^postgres(ql)?:\/\//i.test(from) ? 'secrets/pseudonym.key of the DATA_DIR the source was used with' : path.join(dataFolderOf(from), PSEUDONYM_KEY_FILE);
  const target = /^postgres(ql)?:\/\//i.test(to) ? `secrets/pseudonym.key in ${dataFolderOf(to)}` : path.join(dataFolderOf(to), PSEUDONYM_KEY_FILE);
  return hasFingerprint
    ? `pseudonym key: not part of the database. Copy ${source} to ${target} (mode 0600) before a server or export uses the copy; without it they stop (the copy keeps the key's fingerprint).`
    : 'pseudonym key: the source has none recorded yet; the first server or export using the copy records the key of its DATA_DIR.';
}

async function main(): Promise<number> {
  let raw;
  try {
    raw = parseArgs({
      options: { from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const flags = Flags.safeParse(raw);
  if (!flags.success) {
    console.error(`invalid flags:\n${flagErrors(flags.error)}\n${USAGE}`);
    return 2;
  }

  const bar = process.stderr.isTTY ? new SingleBar({ format: 'db:copy {table} {bar} {value}/{total} rows' }, Presets.shades_classic) : null;
  let current = '';
  try {
    const report = await copyDatabase({
      ...flags.data,
      onProgress: ({ table, copied, total }) => {
        if (!bar) return;
        if (table !== current) {
          if (current) bar.stop();
          current = table;
          bar.start(total, copied, { table });
        } else bar.update(copied, { table });
      },
    });
    bar?.stop();
    const rows = report.tables.reduce((n, t) => n + t.rows, 0);
    console.log(`copied ${rows} rows in ${report.tables.length} tables from ${report.from} to ${report.to} (schema version ${report.schemaVersion})`);
    if (report.replacedRows) console.log(`replaced ${report.replacedRows} rows the target held before (--force)`);
    for (const t of report.tables) console.log(`  ${t.table.padEnd(20)} ${String(t.rows).padStart(8)}  sha256 ${t.sha256}  verified`);
    console.log(pseudonymKeyAdvice(flags.data.from, flags.data.to, (report.tables.find((t) => t.table === 'pseudonym_key')?.rows ?? 0) > 0));
    return 0;
  } catch (err) {
    bar?.stop();
    const line = err instanceof CopyError ? err.message : describeStartupError(err);
    if (line) {
      console.error(line);
      return 1;
    }
    throw err;
  }
}

process.exitCode = await main();
