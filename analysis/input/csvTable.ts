import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import { DatasetError } from './datasetError';

/** A parsed CSV file: header names, rows of raw strings, and each row's 1-based source line. */
export interface CsvTable {
  file: string;
  header: string[];
  rows: string[][];
  lines: number[];
}

/** Reads a whole (small) CSV file with csv-parse; every failure becomes a DatasetError naming the file. */
export function readCsvTable(path: string): CsvTable {
  const file = basename(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DatasetError(file, null, null, `cannot read file (${(error as Error).message})`);
  }
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, { bom: true, info: true, skip_empty_lines: true, relax_column_count: false }) as unknown as typeof records;
  } catch (error) {
    const line = (error as { lines?: number }).lines ?? null;
    throw new DatasetError(file, line, null, `malformed CSV (${(error as Error).message})`);
  }
  const [head, ...body] = records;
  if (!head) throw new DatasetError(file, 1, null, 'file is empty (no header row)');
  const header = head.record.map((h) => h.trim());
  return { file, header, rows: body.map((r) => r.record), lines: body.map((r) => r.info.lines) };
}

/** Index of each required column, or a DatasetError naming the first missing one. */
export function requireColumns(table: CsvTable, names: readonly string[]): Record<string, number> {
  const index: Record<string, number> = {};
  for (const name of names) {
    const i = table.header.indexOf(name);
    if (i < 0) throw new DatasetError(table.file, 1, name, `missing required column (header has: ${table.header.join(', ')})`);
    index[name] = i;
  }
  return index;
}
