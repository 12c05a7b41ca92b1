/** Reading a JSON Lines file of a dataset (messages.jsonl …): each line parsed, and checked, with its file and line. */
import { basename } from 'node:path';
import type { z } from 'zod';
import { DatasetError, readDatasetText } from './datasetError';

/** Calls `visit` with every non-blank line of `path`, parsed; a line that is not JSON stops with `file:line`. */
export function forEachJsonLine(path: string, visit: (json: unknown, line: number, file: string) => void): void {
  const file = basename(path);
  readDatasetText(path)
    .split('\n')
    .forEach((raw, i) => {
      if (raw.trim() === '') return;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (error) {
        throw new DatasetError(file, i + 1, null, `invalid JSON (${(error as Error).message})`);
      }
      visit(json, i + 1, file);
    });
}

/** `json` checked against `schema`; the first problem stops with `file:line: field: message`. */
export function parseDatasetRow<S extends z.ZodType>(schema: S, json: unknown, file: string, line: number): z.output<S> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DatasetError(file, line, String(issue.path[0] ?? ''), issue.message);
  }
  return parsed.data;
}
