import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { Transform, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { formulaSafeCell } from './spreadsheetCells';

/**
 * Streaming writers for dataset files. Each `write` waits for the stream to drain when its buffer
 * is full, so memory stays bounded however many rows pass through; the sha256 and byte count are
 * computed on the bytes as they go to disk.
 */

export interface WrittenFile {
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface RowWriter<Row> {
  write(row: Row): Promise<void>;
  close(): Promise<WrittenFile>;
  /**
   * Abandons the file (the export failed): ends the streams and waits until the file is closed, so the
   * caller can delete the folder without a stream still opening a file in it (which would throw later).
   */
  abort(): Promise<void>;
}

/** A pass-through stage that hashes and counts every byte. */
class HashTap extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

async function writeWithBackpressure(stream: Writable, chunk: unknown): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

function openSink(path: string): { tap: HashTap; file: WriteStream } {
  const tap = new HashTap();
  const file = createWriteStream(path);
  tap.pipe(file);
  return { tap, file };
}

async function closeSink(head: Writable, tap: HashTap, file: WriteStream, path: string, rows: number): Promise<WrittenFile> {
  head.end();
  await finished(file);
  return { path, rows, bytes: tap.bytes, sha256: tap.hash.digest('hex') };
}

async function abortSink(head: Writable, file: WriteStream): Promise<void> {
  file.on('error', () => {}); // an abandoned file has nothing left to report
  head.destroy();
  file.destroy();
  await finished(file).catch(() => {});
}

/** CSV value conventions: empty = missing, booleans "true"/"false", arrays ";"-joined (the layout's convention). */
function csvCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? value : '';
  if (Array.isArray(value)) return value.join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Writes a CSV with the given header (always written, also for zero rows). Rows are objects keyed by column.
 * Cells are formula-neutralised (formulaSafeCell); `numericColumns` names the integer/number columns.
 */
export function csvWriter(path: string, columns: readonly string[], numericColumns: ReadonlySet<string> = new Set()): RowWriter<Record<string, unknown>> {
  const { tap, file } = openSink(path);
  const stringifier = stringify({ header: true, columns: [...columns], eof: true, record_delimiter: '\n' });
  stringifier.pipe(tap);
  let rows = 0;
  return {
    async write(row) {
      const record: Record<string, string | number> = {};
      for (const c of columns) record[c] = formulaSafeCell(csvCell(row[c]), numericColumns.has(c));
      rows++;
      await writeWithBackpressure(stringifier, record);
    },
    close: () => closeSink(stringifier, tap, file, path, rows),
    abort: () => abortSink(stringifier, file),
  };
}

/** Writes one JSON object per line, keys in the given column order (extra keys dropped, missing → null). */
export function jsonlWriter(path: string, columns: readonly string[]): RowWriter<Record<string, unknown>> {
  const { tap, file } = openSink(path);
  let rows = 0;
  return {
    async write(row) {
      const ordered: Record<string, unknown> = {};
      for (const c of columns) ordered[c] = row[c] === undefined ? null : row[c];
      rows++;
      await writeWithBackpressure(tap, Buffer.from(JSON.stringify(ordered) + '\n', 'utf8'));
    },
    close: () => closeSink(tap, tap, file, path, rows),
    abort: () => abortSink(tap, file),
  };
}

/** Writes a whole small text file (codebook, datapackage, manifest) and returns its hash. */
export async function textFile(path: string, text: string): Promise<WrittenFile> {
  const { tap, file } = openSink(path);
  tap.end(Buffer.from(text, 'utf8'));
  await finished(file);
  return { path, rows: 0, bytes: tap.bytes, sha256: tap.hash.digest('hex') };
}
