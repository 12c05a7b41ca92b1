import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes the named files into `dir` all-or-nothing: each goes to a temporary name first and is renamed
 * only after every file was written, so a failure never leaves a half-written set of outputs.
 */
export function writeOutputsAtomically(dir: string, files: Record<string, string>): string[] {
  mkdirSync(dir, { recursive: true });
  const temps: Array<[string, string]> = [];
  try {
    for (const [name, content] of Object.entries(files)) {
      const temp = join(dir, `.${name}.${process.pid}.tmp`);
      writeFileSync(temp, content);
      temps.push([temp, join(dir, name)]);
    }
  } catch (error) {
    for (const [temp] of temps) rmSync(temp, { force: true });
    throw error;
  }
  for (const [temp, final] of temps) renameSync(temp, final);
  return temps.map(([, final]) => final);
}
