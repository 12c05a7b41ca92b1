/**
 * A bench or fault command's flags: node's parseArgs (strict, so an unknown flag throws), then the command's zod
 * schema. A value the schema refuses ends the process with exit code 2 and `<command>: --<flag>: <message>`.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';

export function benchFlags<T>(command: string, options: NonNullable<ParseArgsConfig['options']>, schema: z.ZodType<T>): T {
  const { values } = parseArgs({ options, strict: true });
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  console.error(`${command}: --${String(issue.path[0])}: ${issue.message}`);
  process.exit(2);
}
