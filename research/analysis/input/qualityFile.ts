import { readCsvTable, requireColumns } from './csvTable';
import { DatasetError, EXCLUDED_SESSION } from './datasetError';
import { optionalNumber } from './cells';

/**
 * Applies quality.csv (session_id, quality, samples, parsed — written by the judge) onto a quality
 * column: a non-empty judged quality overrides or fills the session's value. Unknown session ids are
 * an error naming the line.
 */
export function applyQualityFile(path: string, sessionIndex: Map<string, number>, quality: Float64Array): number {
  const table = readCsvTable(path);
  const col = requireColumns(table, ['session_id', 'quality']);
  let applied = 0;
  table.rows.forEach((row, r) => {
    const line = table.lines[r]!;
    const id = (row[col.session_id!] ?? '').trim();
    const s = sessionIndex.get(id);
    if (s === undefined) throw new DatasetError(table.file, line, 'session_id', `session id ${JSON.stringify(id)} is not in sessions.csv`);
    if (s === EXCLUDED_SESSION) return;
    const parsed = optionalNumber.safeParse(row[col.quality!] ?? '');
    if (!parsed.success) throw new DatasetError(table.file, line, 'quality', `${parsed.error.issues[0]!.message} (got ${JSON.stringify(row[col.quality!])})`);
    if (!Number.isNaN(parsed.data)) {
      quality[s] = parsed.data;
      applied++;
    }
  });
  return applied;
}
