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
