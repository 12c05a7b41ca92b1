import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { parseCsv, type ParsedCsv } from '../../input/csvTable';
import { InputError, RecordError, type FileRecord } from './inputError';

export type CsvRow<T> = FileRecord<T>;

/**
 * Reads a CSV file with a header row and validates every record with `schema`. Errors name the
 * file, the line and the column (a bad record throws a RecordError). Columns beyond `schema`'s are
 * allowed (and ignored by zod objects). When `requiredColumns` is given, the file must have a
 * header row with those columns; without it, an empty file is an empty table. Cells and column
 * names are trimmed unless `trim` is false. Used by the agreement CLI and by research/judge.
 */
export function readCsvTable<S extends z.ZodType>(
  file: string,
  schema: S,
  requiredColumns?: readonly string[],
  { trim = true }: { trim?: boolean } = {},
): CsvRow<z.output<S>>[] {
  if (!existsSync(file)) throw new InputError('file not found', file);
  let parsed: ParsedCsv;
  try {
    parsed = parseCsv(readFileSync(file, 'utf8'), { trim });
  } catch (error) {
    const e = error as Error & { lines?: number };
    throw new RecordError({ kind: 'syntax', format: 'CSV', detail: e.message }, `not valid CSV: ${e.message}`, file, e.lines);
  }
  const header = trim ? parsed.header.map((name) => name.trim()) : parsed.header;
  if (requiredColumns !== undefined) {
    if (header.length === 0) throw new InputError('empty file (no header row)', file);
    const missing = requiredColumns.filter((column) => !header.includes(column));
    if (missing.length > 0) {
      throw new InputError(`missing column(s) ${missing.join(', ')} in header (found: ${header.join(', ')})`, file, 1);
    }
  }
  return parsed.rows.map((cells, r) => {
    const line = parsed.startLines[r]!;
    // cells by column name (of two columns with one name, the later wins, as with csv-parse's `columns`)
    const record: Record<string, string> = Object.fromEntries(header.map((name, i) => [name, cells[i]!]));
    const result = schema.safeParse(record);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const column = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
      const got = column !== undefined ? ` (got "${record[column] ?? ''}")` : '';
      throw new RecordError({ kind: 'schema', issues: result.error.issues }, `${issue.message}${got}`, file, line, column);
    }
    return { line, value: result.data };
  });
}
