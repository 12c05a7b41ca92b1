import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { InputError, RecordError, type FileRecord } from './inputError';

/**
 * Reads a JSON Lines file and validates every non-blank line with `schema`. A bad line throws a
 * RecordError naming the file, the line and (for a schema issue) the field; a missing file an
 * InputError. Used by the agreement CLI and by research/judge's dataset reader.
 */
export function readJsonlRecords<S extends z.ZodType>(file: string, schema: S): FileRecord<z.output<S>>[] {
  if (!existsSync(file)) throw new InputError('file not found', file);
  const records: FileRecord<z.output<S>>[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, index) => {
      if (raw.trim() === '') return;
      const line = index + 1;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (error) {
        const detail = (error as Error).message;
        throw new RecordError({ kind: 'syntax', format: 'JSON', detail }, `not valid JSON: ${detail}`, file, line);
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new RecordError({ kind: 'schema', issues: parsed.error.issues }, issue.message, file, line, issue.path.join('.') || undefined);
      }
      records.push({ line, value: parsed.data });
    });
  return records;
}
