/** Writes CSV/JSONL outputs atomically (temp file + rename), so an interrupted write never leaves half a file. */
import { renameSync, writeFileSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';

export function writeFileAtomic(file: string, content: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

export function writeCsv(file: string, columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): void {
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'boolean' ? String(v) : String(v));
  const body = rows.map((row) => columns.map((c) => cell(row[c])));
  writeFileAtomic(file, stringify([columns as string[], ...body]));
}

export function writeJsonl(file: string, rows: readonly unknown[]): void {
  writeFileAtomic(file, rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
}
