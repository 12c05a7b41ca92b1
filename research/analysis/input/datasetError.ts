import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

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

/** The whole text of a (small) dataset file; a file that cannot be read is a DatasetError naming it. */
export function readDatasetText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new DatasetError(basename(path), null, null, `cannot read file (${(error as Error).message})`);
  }
}
