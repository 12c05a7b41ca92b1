/**
 * An input problem in a dataset file, located as precisely as we can: file, 1-based line, column name.
 * The CLI prints `message` and exits non-zero before writing any output.
 */
export class DatasetError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly column: string | null,
    readonly detail: string,
  ) {
    const where = [file, line === null ? null : `line ${line}`, column === null ? null : `column "${column}"`]
      .filter((s) => s !== null)
      .join(', ');
    super(`${where}: ${detail}`);
    this.name = 'DatasetError';
  }
}

/** Session index of a session left out on purpose (a pilot): readers of the other files skip its rows. */
export const EXCLUDED_SESSION = -1;
