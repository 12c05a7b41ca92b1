/** Test helper: runs one of our CLIs (cli/<name>.ts) as a child process through tsx. */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { nodeArgsFor } from './testEntries';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

export interface CliRun {
  code: number | null;
  stderr: string;
}

export function runCli(script: string, args: string[], env: Record<string, string>, onSpawn?: (interrupt: () => void) => void): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...nodeArgsFor(join(REPO_ROOT, script)), ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stderr }));
    onSpawn?.(() => child.kill('SIGINT'));
  });
}
