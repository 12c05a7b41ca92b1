/** Small readers for the files of an exported dataset (CSV with header, JSON lines), for the pipeline test. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';

export type CsvRow = Record<string, string>;

export function readCsv(file: string): CsvRow[] {
  return parse(fs.readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true }) as CsvRow[];
}

export function csvHeader(file: string): string[] {
  const rows = parse(fs.readFileSync(file, 'utf8'), { to_line: 1 }) as string[][];
  return rows[0] ?? [];
}

export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Writes rows back as CSV keeping only `columns` (values quoted when needed). */
export function writeCsv(file: string, columns: readonly string[], rows: readonly CsvRow[]): void {
  const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = [columns.join(','), ...rows.map((r) => columns.map((c) => cell(r[c] ?? '')).join(','))];
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Every file under `dir` (relative paths), recursively. */
export function listFiles(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(prefix, e.name);
    return e.isDirectory() ? listFiles(path.join(dir, e.name), rel) : [rel];
  });
}

/** Sample SD (n − 1) z-scores; SD 0 (or n < 2) gives 0 for every value. */
export function zScores(values: readonly number[]): number[] {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = n < 2 ? 0 : Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  return values.map((v) => (sd === 0 ? 0 : (v - mean) / sd));
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
