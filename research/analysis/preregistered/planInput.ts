/**
 * What the planned analysis reads beside the dataset: the locked plan (preregistration.json from the export,
 * the latest version is in force), the deviations recorded by the platform (deviations.csv), and the session
 * columns the exclusions need (is_pilot, integrity_flags, attention_check_passed, duration_s).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PreregistrationFile, type LockedPlan } from '../../../common/preregistration';
import { DatasetError, readDatasetText } from '../input/datasetError';
import { parseCsv } from '../input/csvTable';

export function readLockedPlan(datasetDir: string): LockedPlan {
  const file = join(datasetDir, 'preregistration.json');
  if (!existsSync(file)) throw new DatasetError('preregistration.json', null, null, `not found in ${datasetDir}: export a study whose plan is locked (npm run prereg -- lock), or run without --prereg`);
  let raw: unknown;
  try {
    raw = JSON.parse(readDatasetText(file));
  } catch (error) {
    if (error instanceof DatasetError) throw error;
    throw new DatasetError('preregistration.json', null, null, `not JSON (${(error as Error).message})`);
  }
  const parsed = PreregistrationFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DatasetError('preregistration.json', null, issue.path.join('.') || null, issue.message);
  }
  const current = parsed.data.versions.at(-1);
  if (!current) throw new DatasetError('preregistration.json', null, 'versions', 'no locked version: the study was exported before its plan was locked');
  return current;
}

export interface RecordedDeviation {
  detected_at: string;
  version: string;
  kind: string;
  file: string;
  field: string;
  message: string;
  justification: string;
}

/** deviations.csv rows (none when the file is absent). */
export function readRecordedDeviations(datasetDir: string): RecordedDeviation[] {
  const file = join(datasetDir, 'deviations.csv');
  if (!existsSync(file)) return [];
  const csv = parseCsv(readDatasetText(file));
  const col = (name: string) => csv.header.indexOf(name);
  return csv.rows.map((r) => ({
    // `time` since dataset schema 1.5.0; detected_at in earlier datasets (and still beside it).
    detected_at: r[col('time')] ?? r[col('detected_at')] ?? '',
    version: r[col('version')] ?? '',
    kind: r[col('kind')] ?? '',
    file: r[col('file')] ?? '',
    field: r[col('field')] ?? '',
    message: r[col('message')] ?? '',
    justification: r[col('justification')] ?? '',
  }));
}

export interface ExclusionColumns {
  isPilot: boolean;
  flags: string[];
  /** true / false, null when the survey has no attention check or it was not answered. */
  attentionPassed: boolean | null;
  durationS: number | null;
}

/** The exclusion columns of sessions.csv by session id (absent columns read as "nothing to exclude"). */
export function readExclusionColumns(datasetDir: string): Map<string, ExclusionColumns> {
  const csv = parseCsv(readDatasetText(join(datasetDir, 'sessions.csv')));
  const col = (name: string) => csv.header.indexOf(name);
  const [id, pilot, flags, attention, duration] = ['session_id', 'is_pilot', 'integrity_flags', 'attention_check_passed', 'duration_s'].map(col) as [number, number, number, number, number];
  const out = new Map<string, ExclusionColumns>();
  for (const r of csv.rows) {
    const cell = (i: number) => (i >= 0 ? (r[i] ?? '').trim() : '');
    const d = cell(duration);
    out.set(cell(id), {
      isPilot: cell(pilot) === 'true',
      flags: cell(flags) ? cell(flags).split(';').map((f) => f.trim()) : [],
      attentionPassed: cell(attention) === 'true' ? true : cell(attention) === 'false' ? false : null,
      durationS: d === '' || !Number.isFinite(Number(d)) ? null : Number(d),
    });
  }
  return out;
}
