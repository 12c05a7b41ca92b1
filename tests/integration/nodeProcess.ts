/**
 * A Tandem server in a child process (under tsx, so the pid is the server itself), for tests that SIGKILL a
 * node: no shutdown code runs, exactly as when a machine dies. The entry prints `READY {"url"}` when listening.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { RunningServer } from '../../server/app';
import type { TestServer } from '../support/integrationHarness';
import { nodeArgsFor } from '../support/testEntries';

export interface NodeProcess {
  process: ChildProcess;
  url: string;
  exited: Promise<void>;
  /** The harness helpers (join, connectSocket) over this node; close() does nothing (kill the process). */
  asTestServer(dataDir: string): TestServer;
}

export async function startNodeProcess(entry: string, env: Record<string, string>): Promise<NodeProcess> {
  const child = spawn(process.execPath, nodeArgsFor(entry), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-10_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server child not ready in 30 s\n${stderr}`)), 30_000);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!line.startsWith('READY ')) return;
        clearTimeout(timer);
        resolve((JSON.parse(line.slice(6)) as { url: string }).url);
      });
      void exited.then(() => reject(new Error(`server child exited before ready\n${stderr}`)));
    });
    const asTestServer = (dataDir: string): TestServer => ({ server: { url } as unknown as RunningServer, dataDir, sockets: [], close: async () => {} });
    return { process: child, url, exited, asTestServer };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}

/** Kills the node as a power cut would, and waits until it is gone. */
export async function killNode(node: NodeProcess): Promise<void> {
  if (node.process.exitCode === null && node.process.signalCode === null) node.process.kill('SIGKILL');
  await node.exited;
}
