/**
 * Bad input from a file or a flag. The message names the file and, where known, the line and
 * column, so a researcher can fix the cell without guessing. CLIs print it without a stack trace.
 */
export class InputError extends Error {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly column?: string,
  ) {
    super([file, line !== undefined ? `line ${line}` : undefined, column !== undefined ? `column "${column}"` : undefined]
      .filter(Boolean)
      .join(', ')
      .concat(file || line !== undefined || column !== undefined ? ': ' : '', message));
    this.name = 'InputError';
  }
}

/** What is wrong with one record of a data file, for callers that word the error their own way. */
export type RecordProblem =
  /** The line is not valid JSON / the file is not valid CSV; `detail` is the parser's message. */
  | { kind: 'syntax'; format: 'JSON' | 'CSV'; detail: string }
  /** The record parsed but failed its zod schema (every issue, first one first). */
  | { kind: 'schema'; issues: ReadonlyArray<{ readonly path: readonly PropertyKey[]; readonly message: string }> };

/**
 * A bad record in a JSONL or CSV file (see readJsonlRecords, readCsvTable). The message is worded
 * like any InputError; `problem` keeps the parts, so research/judge can report in its own format.
 */
export class RecordError extends InputError {
  constructor(
    readonly problem: RecordProblem,
    message: string,
    file: string,
    line?: number,
    column?: string,
  ) {
    super(message, file, line, column);
  }
}

/** One validated record and the 1-based line where it starts (a CSV header is line 1). */
export interface FileRecord<T> {
  line: number;
  value: T;
}
