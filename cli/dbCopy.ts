/**
 * npm run db:copy -- --from <sqlite file | postgres url> --to <sqlite file | postgres url> [--force]
 *
 * Copies every table of a Tandem database to another database of either engine (lib/storage/copy/), then
 * checks row counts and a content hash per table before committing. Refuses a target that already holds
 * rows unless --force. Exit codes: 0 copied and verified, 1 refused or failed (target unchanged), 2 bad flags.
 */
import { parseArgs } from 'node:util';
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
