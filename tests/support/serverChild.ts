/**
 * A server running as a child process (tests/integration/crashServerProcess.ts), for tests that SIGKILL it and
 * start it again on the same data: started under tsx's in-process loader (so the pid is the server itself),
 * ready once it prints `READY {"url"}`. The caller kills what it started (`children` lists them).
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startNodeProcess, type NodeProcess } from '../integration/nodeProcess';

export type ServerChild = NodeProcess;

export const CRASH_SERVER_ENTRY = path.resolve(import.meta.dirname, '../integration/crashServerProcess.ts');

export async function startServerChild(env: Record<string, string>, children: ChildProcess[]): Promise<ServerChild> {
  const child = await startNodeProcess(CRASH_SERVER_ENTRY, env);
  children.push(child.process);
  return child;
}
