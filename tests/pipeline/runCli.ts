/**
 * Runs one of the project's command lines the way a researcher does (`tsx cli/<name>.ts …`, what the
 * npm scripts call), as a child process with its own environment. Asynchronous on purpose: a fake
 * OpenAI server started by the test lives in this process and must keep answering while the CLI runs.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { nodeArgsFor } from '../support/testEntries';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment for a CLI: PATH/HOME from this process, no model keys unless given in `extra`. */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'error', ...extra };
  return env;
}

export function runCli(name: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 45_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsFor(path.join('cli', `${name}.ts`)), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cli/${name}.ts ${args.join(' ')} did not finish within ${timeoutMs} ms\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like runCli but throws with the output unless the exit code is 0. */
export async function runCliOk(name: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const r = await runCli(name, args, env);
  if (r.code !== 0) throw new Error(`cli/${name}.ts ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}
