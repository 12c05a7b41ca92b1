import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATABASE_FILE_NAME } from '../lib/storage';

/**
 * Where the command lines find the server's data: DATA_DIR, else ./data of the current folder, the
 * same default as `npm start` (wiring/main.ts), so a CLI run from the project folder opens the
 * database the server wrote without any setting.
 */
export const DEFAULT_DATA_DIR = 'data';

export function cliDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR || DEFAULT_DATA_DIR);
}

/**
 * The data folder for a CLI that opens the database, after saying on stderr which database it is
 * (stdout stays for the command's own output). When there is none the CLI reports it (with the DATA_DIR hint).
 */
export function cliDataDirAnnounced(env: NodeJS.ProcessEnv = process.env, write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): string {
  const dir = cliDataDir(env);
  if (env.DATABASE_URL) {
    write('database: PostgreSQL (DATABASE_URL)');
    return dir;
  }
  const file = join(dir, DATABASE_FILE_NAME);
  if (existsSync(file)) write(`database: ${file}${env.DATA_DIR ? ' (DATA_DIR)' : ' (default ./data; set DATA_DIR for another)'}`);
  return dir;
}
