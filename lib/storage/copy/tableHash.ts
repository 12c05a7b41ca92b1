/**
 * The content hash db:copy compares per table: SHA-256 over the canonical JSON of each row, one line per row,
 * rows in primary-key order (byte order of the key text on both engines: SQLite BINARY, PostgreSQL COLLATE "C").
 * Canonical JSON of a row: an object of its columns in name order, JSON.stringify'd (numbers in JavaScript's
 * shortest round-trip form), so equal rows hash equally whichever engine they were read from.
 */
import crypto from 'node:crypto';
import type { Row } from './tables';

export class TableHasher {
  private readonly hash = crypto.createHash('sha256');
  private readonly order: number[];
  private readonly names: string[];
  rows = 0;

  constructor(columns: readonly string[]) {
    this.order = columns.map((_, i) => i).sort((a, b) => (columns[a]! < columns[b]! ? -1 : 1));
    this.names = this.order.map((i) => JSON.stringify(columns[i]));
  }

  add(row: Row): void {
    let line = '{';
    for (let k = 0; k < this.order.length; k++) {
      const v = row[this.order[k]!];
      if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`cannot hash the non-finite number ${v}`);
      line += `${k ? ',' : ''}${this.names[k]}:${JSON.stringify(v ?? null)}`;
    }
    this.hash.update(`${line}}\n`);
    this.rows++;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}
