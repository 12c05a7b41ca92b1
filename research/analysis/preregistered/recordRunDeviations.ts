/**
 * Where an `analyze --prereg` run's own deviations are kept (docs/preregistration.md, "Deviations"):
 *
 * 1. in the study's store, beside the runtime's deviations (lib/preregistration/analysisDeviations.ts), when the
 *    command reaches a database (--data-dir, DATABASE_URL, or the default ./data, as the other commands) holding the
 *    locked version the dataset's preregistration.json names, with the same hashes;
 * 2. otherwise in the dataset folder, as deviations.analysis.csv (deviations.csv's columns), and the report and
 *    summary.json say they were not recorded in the study's store, and why.
 *
 * Either way each is kept once per (version, kind, file, field) with the time of the run that first made it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEVIATION_CSV_COLUMNS, type LockedPlan } from '../../../common/preregistration';
import { DATABASE_FILE_NAME, openStore, type StoreConfig } from '../../../lib/storage';
import { recordAnalysisDeviations } from '../../../lib/preregistration/analysisDeviations';
import { parseCsv } from '../input/csvTable';
import type { RunDeviationRecord, SectionDeviation } from './preregisteredSection';

export type { RunDeviationRecord };

export const ANALYSIS_DEVIATIONS_FILE = 'deviations.analysis.csv';

export interface RunDeviationInput {
  datasetDir: string;
  locked: LockedPlan;
  deviations: readonly SectionDeviation[];
  /** The study's database as the command line found it; null when the caller has none. */
  store: StoreConfig | null;
  actor: string;
  now: number;
}

/** Why `config` is no database to open (a SQLite folder without its file), or null when there is one to try. */
function missingDatabase(config: StoreConfig | null): string | null {
  if (!config) return 'no database was given';
  if (config.databaseUrl) return null;
  const file = join(config.dataDir, DATABASE_FILE_NAME);
  return existsSync(file) ? null : `no database at ${file} (give --data-dir or DATABASE_URL)`;
}

export async function recordRunDeviations(input: RunDeviationInput): Promise<RunDeviationRecord | null> {
  const findings = input.deviations.filter((d) => d.source === 'analysis');
  if (findings.length === 0) return null;
  let reason = missingDatabase(input.store);
  if (reason === null) {
    try {
      const store = await openStore(input.store!);
      try {
        const outcome = await recordAnalysisDeviations(store, {
          studyId: input.locked.study_id,
          version: input.locked.version,
          planHash: input.locked.plan_hash,
          studyHash: input.locked.study_hash,
          findings: findings.map((d) => ({ kind: 'analysis_settings', file: d.file, field: d.field, message: d.message })),
          actor: input.actor,
          now: input.now,
        });
        if (outcome.status === 'recorded') return { recorded_in: 'store', where: store.description, new: outcome.recorded.length, already_recorded: outcome.alreadyRecorded, reason: null };
        reason = outcome.reason;
      } finally {
        await store.close();
      }
    } catch (err) {
      reason = `the database could not be opened or written (${(err as Error).message})`;
    }
  }
  return { ...appendToFile(input, findings), reason };
}

const csvCell = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Appends what deviations.analysis.csv does not hold yet (by version, kind, file, field). */
function appendToFile(input: RunDeviationInput, findings: readonly SectionDeviation[]): Omit<RunDeviationRecord, 'reason'> {
  const file = join(input.datasetDir, ANALYSIS_DEVIATIONS_FILE);
  const key = (version: string, kind: string, f: string, field: string) => [version, kind, f, field].join('\u0000');
  const existing = existsSync(file) ? parseCsv(readFileSync(file, 'utf8')) : null;
  const seen = new Set<string>();
  if (existing) {
    const at = (name: string) => existing.header.indexOf(name);
    for (const r of existing.rows) seen.add(key(r[at('version')] ?? '', r[at('kind')] ?? '', r[at('file')] ?? '', r[at('field')] ?? ''));
  }
  const detectedAt = new Date(input.now).toISOString();
  const fresh = findings.filter((d) => !seen.has(key(String(input.locked.version), d.kind, d.file, d.field)));
  const cells: Record<(typeof DEVIATION_CSV_COLUMNS)[number], (d: SectionDeviation) => string> = {
    time: () => detectedAt,
    kind: (d) => d.kind,
    file: (d) => d.file,
    field: (d) => d.field,
    justification: () => '',
    version: () => String(input.locked.version),
    message: (d) => d.message,
    justified_at: () => '',
    detected_at: () => detectedAt,
  };
  // In the file's own column order (an earlier run's), else deviations.csv's.
  const header = existing?.header ?? [...DEVIATION_CSV_COLUMNS];
  const lines = fresh.map((d) => header.map((c) => csvCell(Object.hasOwn(cells, c) ? cells[c as keyof typeof cells](d) : '')).join(','));
  const text = existing ? readFileSync(file, 'utf8') : `${DEVIATION_CSV_COLUMNS.join(',')}\n`;
  if (fresh.length > 0 || !existing) writeFileSync(file, `${text}${text.endsWith('\n') ? '' : '\n'}${lines.map((l) => `${l}\n`).join('')}`);
  return { recorded_in: 'file', where: file, new: fresh.length, already_recorded: findings.length - fresh.length };
}
