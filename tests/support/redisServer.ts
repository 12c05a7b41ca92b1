/**
 * A throwaway redis-server for tests (Debian's redis-server package): no persistence, a free port on
 * loopback, its folder removed on stop.
 *
 *   const redis = await startRedisServer();   // skip the suite when redisServerMissing() says why
 *   … REDIS_URL = redis.url …
 *   await redis.restart();                   // the same port, empty (a Redis restart)
 *   await redis.stop();
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './postgresCluster';

const BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** Why Redis tests cannot run here (no binary), or null when they can. */
export function redisServerMissing(): string | null {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return `${BINARY} not found (apt-get install -y redis-server): Redis tests skipped`;
  return null;
}

export interface RedisServer {
  url: string;
  port: number;
  /** Stops it (SIGKILL: no shutdown work) and starts it again on the same port; resolves when it accepts connections. */
  restart(): Promise<void>;
  /** Stops it without starting it again (the port stays free until start()). */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';

  const start = async () => {
    log = '';
    const proc = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null) throw new Error(`redis-server exited (${proc.exitCode}):\n${log}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within 10 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    kill,
    restart: async () => {
      await kill();
      await start();
    },
    stop: async () => {
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
