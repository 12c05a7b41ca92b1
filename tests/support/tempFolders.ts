/**
 * Temporary folders for one test file: `const tempFolder = tempFolders('tandem-x-')` at the top of the file, then
 * `tempFolder()` for each new folder. Every folder it made is deleted after the file's tests (vitest afterAll).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

export function tempFolders(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
