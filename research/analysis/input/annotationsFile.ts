import { basename } from 'node:path';
import { z } from 'zod';
import { DatasetError, EXCLUDED_SESSION } from './datasetError';
import { fileContainsQuote, forEachLineSpan, forEachQuotedCsvRow } from './csvLines';
import { AnnotationColumns } from './annotationColumns';

export const SPEAKER_USER = 0;
export const SPEAKER_AGENT = 1;

/**
 * annotations.csv held column-wise (one entry per annotated utterance). Label ids index `labels`;
 * `friction` is −1 for "none"/empty; grounding labels of row i are groundingIds[groundingStart[i]..[i+1]).
 */
export interface AnnotationTable {
  size: number;
  labels: string[];
  frictionLabels: Set<string>;
  session: Int32Array;
  turn: Int32Array;
  speaker: Uint8Array;
  friction: Int32Array;
  groundingStart: Uint32Array;
  groundingIds: Uint16Array;
}

const REQUIRED = ['session_id', 'turn', 'speaker', 'friction', 'grounding'] as const;
const labelSchema = z.string().regex(/^[A-Za-z0-9_-]+$/, 'labels are letters, digits, "_" or "-"');
const speakerSchema = z.enum(['user', 'agent']);

/**
 * Reads annotations.csv (session_id, turn, speaker user|agent, friction, grounding `;`-joined) against
 * the known session ids. Throws DatasetError naming file, line and column for any bad cell, including an
 * unknown session id. Unquoted files (the export's) are scanned in place without per-field strings;
 * files with quotes go through csv-parse; both feed the same checks.
 */
export function readAnnotationsFile(path: string, sessionIndex: Map<string, number>): AnnotationTable {
  const file = basename(path);
  const reader = new AnnotationReader(file, sessionIndex);
  try {
    if (fileContainsQuote(path)) forEachQuotedCsvRow(path, (fields, line) => reader.fields(fields, line));
    else forEachLineSpan(path, (text, start, end, line) => reader.span(text, start, end, line));
  } catch (error) {
    if (error instanceof DatasetError) throw error;
    throw new DatasetError(file, null, null, `cannot read file (${(error as Error).message})`);
  }
  return reader.finish();
}

/** Where the required columns are (session_id, turn, speaker, friction, grounding) and how many fields a row has. */
export interface AnnotationHeader {
  col: number[];
  width: number;
}

/** The header row's columns; a DatasetError naming the header's line when a required one is missing. */
export function annotationHeader(file: string, fields: string[], line: number): AnnotationHeader {
  const header = fields.map((h) => h.trim());
  const col = REQUIRED.map((name) => {
    const i = header.indexOf(name);
    if (i < 0) throw new DatasetError(file, line, name, `missing required column (header has: ${header.join(', ')})`);
    return i;
  });
  return { col, width: header.length };
}

/** The rows of one byte range of annotations.csv (after its header), read apart so that ranges can be read at once. */
export interface AnnotationChunk {
  /** Lines of the range (numbered from 1 within it). */
  lines: number;
  columns: ReturnType<AnnotationColumns['finish']>;
  /** Label ids of `columns` index this (first seen first); friction labels in the order first seen as one. */
  labels: string[];
  frictionLabels: string[];
  /** The range's first bad cell, its line numbered within the range (the rows before it are in `columns`). */
  error: { line: number; column: string | null; detail: string } | null;
}

/** Reads bytes [start, end) of an unquoted annotations.csv (start just after a line break) with a known header. */
export function readAnnotationChunk(path: string, sessionIndex: Map<string, number>, header: AnnotationHeader, bytes: { start: number; end: number }): AnnotationChunk {
  const reader = new AnnotationReader(basename(path), sessionIndex, header);
  let lines = 0;
  let error: AnnotationChunk['error'] = null;
  try {
    lines = forEachLineSpan(path, (text, start, end, line) => reader.span(text, start, end, line), bytes);
  } catch (e) {
    if (!(e instanceof DatasetError)) throw e;
    error = { line: e.line ?? 0, column: e.column, detail: e.detail };
  }
  return { lines, ...reader.parts(), error };
}

/** Validates rows (as a field list or as a span of a line) and stores them column-wise. */
class AnnotationReader {
  private store = new AnnotationColumns();
  private labelIds = new Map<string, number>();
  /** label lookup without allocating: key (length, first and last char) → [label, id] candidates */
  private labelsByShape = new Map<number, Array<[string, number]>>();
  private frictionLabels = new Set<string>();
  private col: number[] | null = null;
  private width = 0;
  // The last session id seen and its index (rows of one session are usually adjacent). null before the
  // first row, so an empty session id is looked up (and rejected) rather than matched against ''.
  private lastKey: string | null = null;
  private lastSession = EXCLUDED_SESSION;
  private bounds = new Int32Array(64);
  private starts = new Int32Array(5);
  private ends = new Int32Array(5);

  constructor(
    private file: string,
    private sessionIndex: Map<string, number>,
    header?: AnnotationHeader,
  ) {
    if (header) (this.col = header.col), (this.width = header.width);
  }

  fields(fields: string[], line: number): void {
    if (this.col === null) return this.header(fields, line);
    this.checkWidth(fields.length, line);
    const [cs, ct, csp, cf, cg] = this.col as [number, number, number, number, number];
    // reuse the span parser on a NUL-joined copy (NUL cannot occur in a valid cell)
    const text = fields.join('\u0000');
    const starts: number[] = [];
    let pos = 0;
    for (const f of fields) {
      starts.push(pos);
      pos += f.length + 1;
    }
    const cols = [cs, ct, csp, cf, cg];
    this.row(text, line, cols.map((c) => starts[c]!), cols.map((c) => starts[c]! + fields[c]!.length));
  }

  span(text: string, start: number, end: number, line: number): void {
    if (this.col === null) return this.header(text.slice(start, end).split(','), line);
    let n = 0;
    this.bounds[n++] = start;
    for (let p = text.indexOf(',', start); p >= 0 && p < end; p = text.indexOf(',', p + 1)) {
      if (n >= this.bounds.length - 1) break;
      this.bounds[n++] = p + 1;
    }
    this.checkWidth(n, line);
    this.bounds[n] = end + 1;
    const c = this.col;
    for (let k = 0; k < 5; k++) {
      this.starts[k] = this.bounds[c[k]!]!;
      this.ends[k] = this.bounds[c[k]! + 1]! - 1;
    }
    this.row(text, line, this.starts, this.ends);
  }

  finish(): AnnotationTable {
    if (this.col === null) throw new DatasetError(this.file, 1, null, 'file is empty (no header row)');
    return { ...this.store.finish(), labels: [...this.labelIds.keys()], frictionLabels: this.frictionLabels };
  }

  parts(): Omit<AnnotationChunk, 'lines' | 'error'> {
    return { columns: this.store.finish(), labels: [...this.labelIds.keys()], frictionLabels: [...this.frictionLabels] };
  }

  private header(fields: string[], line: number): void {
    ({ col: this.col, width: this.width } = annotationHeader(this.file, fields, line));
  }

  private checkWidth(n: number, line: number): void {
    if (n !== this.width) throw new DatasetError(this.file, line, null, `expected ${this.width} fields like the header, got ${n}`);
  }

  /** One data row: s[k], e[k] delimit required column k (session_id, turn, speaker, friction, grounding). */
  private row(text: string, line: number, s: ArrayLike<number>, e: ArrayLike<number>): void {
    let s0 = trimStart(text, s[0]!, e[0]!);
    let e0 = trimEnd(text, s0, e[0]!);
    let session = this.lastSession;
    if (this.lastKey === null || !(e0 - s0 === this.lastKey.length && text.startsWith(this.lastKey, s0))) {
      const key = text.slice(s0, e0);
      const found = this.sessionIndex.get(key);
      if (found === undefined) throw new DatasetError(this.file, line, 'session_id', `session id ${JSON.stringify(key)} is not in sessions.csv`);
      session = this.lastSession = found;
      this.lastKey = key;
    }
    if (session === EXCLUDED_SESSION) return;
    s0 = trimStart(text, s[1]!, e[1]!);
    e0 = trimEnd(text, s0, e[1]!);
    let turn = 0;
    let ok = e0 > s0 && e0 - s0 < 10;
    for (let p = s0; p < e0 && ok; p++) {
      const d = text.charCodeAt(p) - 48;
      if (d < 0 || d > 9) ok = false;
      else turn = turn * 10 + d;
    }
    if (!ok) throw new DatasetError(this.file, line, 'turn', `not a non-negative integer (got ${JSON.stringify(text.slice(s0, e0))})`);
    s0 = trimStart(text, s[2]!, e[2]!);
    e0 = trimEnd(text, s0, e[2]!);
    const len = e0 - s0;
    const speaker = len === 4 && text.startsWith('user', s0) ? SPEAKER_USER : len === 5 && text.startsWith('agent', s0) ? SPEAKER_AGENT : -1;
    if (speaker < 0) {
      const got = text.slice(s0, e0);
      const issue = speakerSchema.safeParse(got).error?.issues[0]?.message ?? 'invalid speaker';
      throw new DatasetError(this.file, line, 'speaker', `${issue} (got ${JSON.stringify(got)})`);
    }
    s0 = trimStart(text, s[3]!, e[3]!);
    e0 = trimEnd(text, s0, e[3]!);
    let friction = -1;
    if (e0 > s0 && !(e0 - s0 === 4 && text.startsWith('none', s0))) {
      friction = this.label(text, s0, e0, line, 'friction');
      this.frictionLabels.add(this.lastLabel);
    }
    this.store.push(session, turn, speaker, friction);
    const gEnd = e[4]!;
    let p = s[4]!;
    while (p <= gEnd) {
      let q = text.indexOf(';', p);
      if (q < 0 || q > gEnd) q = gEnd;
      const a = trimStart(text, p, q);
      const b = trimEnd(text, a, q);
      if (b > a && !(b - a === 4 && text.startsWith('none', a))) this.store.pushGrounding(this.label(text, a, b, line, 'grounding'));
      p = q + 1;
    }
  }

  private lastLabel = '';

  private label(text: string, start: number, end: number, line: number, column: string): number {
    const shape = (end - start) | (text.charCodeAt(start) << 8) | (text.charCodeAt(end - 1) << 20);
    const candidates = this.labelsByShape.get(shape);
    if (candidates) {
      for (const [label, id] of candidates) {
        if (text.startsWith(label, start)) {
          this.lastLabel = label;
          return id;
        }
      }
    }
    const label = text.slice(start, end);
    const ok = labelSchema.safeParse(label);
    if (!ok.success) throw new DatasetError(this.file, line, column, `${ok.error.issues[0]!.message} (got ${JSON.stringify(label)})`);
    const id = this.labelIds.size;
    this.labelIds.set(label, id);
    if (candidates) candidates.push([label, id]);
    else this.labelsByShape.set(shape, [[label, id]]);
    this.lastLabel = label;
    return id;
  }
}

/** First position of [start, end) that is not a space or tab. */
function trimStart(text: string, start: number, end: number): number {
  while (start < end && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++;
  return start;
}

/** End of [start, end) without trailing spaces or tabs. */
function trimEnd(text: string, start: number, end: number): number {
  while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--;
  return end;
}
