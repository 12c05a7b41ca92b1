import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

/**
 * Calls `onRow(fields, line)` for every non-empty row of a CSV file, header included (line 1).
 * Files without any double quote are read in chunks and split on commas directly (fast path); a file
 * containing a double quote anywhere goes through csv-parse so quoted fields (commas, newlines, "")
 * stay correct.
 */
export function forEachCsvRow(path: string, onRow: (fields: string[], line: number) => void): void {
  if (fileContainsQuote(path)) {
    forEachQuotedCsvRow(path, onRow);
    return;
  }
  forEachLineSpan(path, (text, start, end, line) => onRow(text.slice(start, end).split(','), line));
}

/** csv-parse over the whole file (quoted fields allowed); rows may have any number of fields. */
export function forEachQuotedCsvRow(path: string, onRow: (fields: string[], line: number) => void): void {
  const records = parse(readFileSync(path, 'utf8'), {
    bom: true,
    info: true,
    skip_empty_lines: true,
    relax_column_count: true,
  }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  for (const { record, info } of records) onRow(record, info.lines);
}

const CHUNK = 16 * 1024 * 1024;

/**
 * Streams the non-empty lines of a UTF-8 file (LF or CRLF, optional BOM) as spans of a chunk string:
 * `text.slice(start, end)` is line number `line` without its line break. Nothing is copied per line.
 * With `bytes`, only the lines of that byte range (it starts at 0 or just after a line break; lines are
 * numbered from 1 within it). Returns the number of lines read (line breaks, and a last line without one).
 */
export function forEachLineSpan(
  path: string,
  onLine: (text: string, start: number, end: number, line: number) => void,
  bytes?: { start: number; end: number },
): number {
  const fd = openSync(path, 'r');
  let line = 0;
  let first = (bytes?.start ?? 0) === 0;
  let position = bytes?.start ?? 0;
  const end = bytes?.end ?? Infinity;
  const emit = (text: string) => {
    let start = 0;
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) start = 1;
    }
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) return;
      line++;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (end > start) onLine(text, start, end, line);
      start = nl + 1;
    }
  };
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry = Buffer.alloc(0);
    for (;;) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK, end - position), position);
      if (read === 0) break;
      position += read;
      const data = carry.length ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      const lastNewline = data.lastIndexOf(10);
      if (lastNewline < 0) {
        carry = Buffer.from(data);
        continue;
      }
      emit(data.toString('utf8', 0, lastNewline + 1));
      carry = Buffer.from(data.subarray(lastNewline + 1));
    }
    if (carry.length) emit(carry.toString('utf8') + '\n');
  } finally {
    closeSync(fd);
  }
  return line;
}

/** True when the file contains a double quote (then it needs a real CSV parser). */
export function fileContainsQuote(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null);
      if (read === 0) return false;
      if (buffer.subarray(0, read).indexOf(34) >= 0) return true;
    }
  } finally {
    closeSync(fd);
  }
}
