/**
 * A server running as a child process (server/integration/crashServerProcess.ts), for tests that SIGKILL it and
 * start it again on the same data: started under tsx's in-process loader (so the pid is the server itself),
 * ready once it prints `READY {"url"}`. The caller kills what it started (`children` lists them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface ServerChild {
  process: ChildProcess;
  url: string;
  exited: Promise<void>;
}

export const CRASH_SERVER_ENTRY = path.resolve(import.meta.dirname, '../../server/integration/crashServerProcess.ts');

export async function startServerChild(env: Record<string, string>, children: ChildProcess[]): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', CRASH_SERVER_ENTRY], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-10_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server child not ready in 30 s\n${stderr}`)), 30_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('READY ')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line.slice(6)) as { url: string }).url);
    });
    void exited.then(() => reject(new Error(`server child exited before ready\n${stderr}`)));
  });
  return { process: child, url, exited };
}
