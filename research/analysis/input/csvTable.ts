import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import { DatasetError, readDatasetText } from './datasetError';

/** CSV text split into its first row and the rows after it, with the 1-based lines each row spans. */
export interface ParsedCsv {
  /** The first row as parsed; [] when the text has no rows. */
  header: string[];
  /** The rows after the first, each as wide as it. */
  rows: string[][];
  /** Line each row starts on (a quoted cell can span lines). */
  startLines: number[];
  /** Line each row ends on: later than its start when a quoted cell holds line breaks. */
  endLines: number[];
}

/**
 * The one CSV dialect of the analysis and agreement readers, parsed whole with csv-parse: optional BOM,
 * quoted cells, empty lines skipped, every row as wide as the first. `trim` trims every cell (and allows
 * spaces around quoted cells). Invalid CSV throws csv-parse's error, whose `lines` is where it stopped.
 * sessions.csv and annotations.csv, millions of rows at scale, are read by csvLines.ts instead.
 */
export function parseCsv(text: string, { trim = false }: { trim?: boolean } = {}): ParsedCsv {
  type Row = { record: string[]; raw: string; info: { lines: number } };
  const records = parse(text, { bom: true, info: true, raw: true, skip_empty_lines: true, relax_column_count: false, trim }) as unknown as Row[];
  const [head, ...body] = records;
  return {
    header: head?.record ?? [],
    rows: body.map((r) => r.record),
    // csv-parse reports the line a row ends on; counting back the line breaks inside its cells (quoted
    // multi-line values) gives the line it starts on. (Not `raw`: it also holds skipped empty lines.)
    startLines: body.map((r) => r.info.lines - r.record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0)),
    endLines: body.map((r) => r.info.lines),
  };
}

/** A parsed CSV file: header names, rows of raw strings, and the 1-based line each row ends on. */
export interface CsvTable {
  file: string;
  header: string[];
  rows: string[][];
  lines: number[];
}

/** Reads a whole (small) CSV file; every failure becomes a DatasetError naming the file. */
export function readCsvTable(path: string): CsvTable {
  const file = basename(path);
  const text = readDatasetText(path);
  let parsed: ParsedCsv;
  try {
    parsed = parseCsv(text);
  } catch (error) {
    const line = (error as { lines?: number }).lines ?? null;
    throw new DatasetError(file, line, null, `malformed CSV (${(error as Error).message})`);
  }
  if (parsed.header.length === 0) throw new DatasetError(file, 1, null, 'file is empty (no header row)');
  const header = parsed.header.map((h) => h.trim());
  return { file, header, rows: parsed.rows, lines: parsed.endLines };
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
