/**
 * `npm start` and the command lines agree on where the data is without any setting: the server started
 * in a folder puts its database in ./data, a restart says how to reset the researcher password, and the
 * export and withdraw CLIs run in the same folder open that database and say which file they opened.
 * Real processes (tsx wiring/main.ts, tsx cli/*.ts) in a temp folder, without DATA_DIR or ADMIN_PASSWORD.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../support/testEntries';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const folder = mkdtempSync(path.join(tmpdir(), 'tandem-cwd-'));

/** The environment of someone who has set nothing. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', ...extra };
  for (const name of ['DATA_DIR', 'ADMIN_PASSWORD', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) if (!(name in extra)) delete env[name];
  return env;
}

/** Starts the server in `folder`, waits for its start-up lines, stops it; returns what it printed. */
async function startAndStop(): Promise<string> {
  const child = spawn(process.execPath, nodeArgsFor(path.join(ROOT, 'wiring/main.ts')), { cwd: folder, env: plainEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!/Study links:[\s\S]*Researcher dashboard/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  await exited;
  return out;
}

async function cli(script: string, args: string[], env = plainEnv()): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...nodeArgsFor(path.join(ROOT, script)), ...args], { cwd: folder, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the default data folder', () => {
  it('npm start puts the data in ./data and, on a restart, says how to reset the password', async () => {
    const first = await startAndStop();
    const dataDir = path.join(folder, 'data');
    expect(first).toContain(`Database: ${dataDir}${path.sep}`);
    expect(first).toContain('shown only this once');
    expect(readdirSync(dataDir).some((f) => /\.(sqlite3?|db)$/.test(f))).toBe(true);

    const restart = await startAndStop();
    expect(restart).not.toContain('shown only this once');
    expect(restart).toMatch(/forgot the password\? restart with ADMIN_PASSWORD='[^']+' npm start/);
  }, 120_000);

  it('the export and withdraw CLIs run in that folder open the same database and name it', async () => {
    const dbFile = readdirSync(path.join(folder, 'data')).find((f) => /\.(sqlite3?|db)$/.test(f))!;
    const expected = `database: ${path.join(folder, 'data', dbFile)} (default ./data; set DATA_DIR for another)`;

    const exported = await cli('cli/export.ts', ['--study', 'travel-planning', '--out', path.join(folder, 'export')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(expected);
    expect(exported.stdout).toContain('exported study "travel-planning"');
    expect(existsSync(path.join(folder, 'export', 'sessions.csv'))).toBe(true);

    const withdrawn = await cli('cli/withdraw.ts', ['--study', 'travel-planning', '--participant', 'nobody-here']);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(withdrawn.stderr).toContain(expected);

    // DATA_DIR still points elsewhere, and a folder without a database says so.
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'tandem-empty-'));
    try {
      const missing = await cli('cli/export.ts', ['--study', 'travel-planning', '--out', path.join(folder, 'export2')], plainEnv({ DATA_DIR: elsewhere }));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`no database at ${elsewhere}`);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 120_000);
});
