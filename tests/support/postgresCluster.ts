/**
 * A real, throwaway PostgreSQL cluster for tests and benchmarks (no mock, no in-memory stand-in).
 *
 *   const pg = await startPostgresCluster();   // initdb in a temp folder, postgres on a free loopback port
 *   pg.url                                     // postgres://postgres@127.0.0.1:PORT/postgres
 *   await pg.restart();                        // fast shutdown + start on the same port (fault tests)
 *   await pg.stop();                           // stops the server and removes the temp folder
 *
 * Debian's `postgresql` package provides the binaries (PostgreSQL 15 in /usr/lib/postgresql/15/bin; set
 * PG_BIN to use another folder). PostgreSQL refuses to run as root, so as root the cluster belongs to an
 * unprivileged system user (`tandemtest`, created with useradd when missing); as anyone else it runs as
 * that user. Durability against power loss is switched off (fsync, full_page_writes): the data is thrown
 * away, and start-up and commits are then fast. synchronous_commit stays on: a COMMIT returns only once its
 * WAL is written to the OS, so a killed server (restart 'immediate') loses nothing acknowledged, as in production. Authentication is `trust` on loopback and the socket,
 * which lives inside the temp folder, so nothing outside the test can reach it by accident.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PostgresCluster {
  /** Superuser URL of the `postgres` database over TCP on 127.0.0.1. */
  readonly url: string;
  readonly port: number;
  /** The temp folder (data directory, socket directory, server log). */
  readonly dir: string;
  /** Stops the server (fast shutdown) and removes the temp folder. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Shutdown and start again on the same port; resolves when it accepts connections. 'fast' (default): open
   * connections are cut, a checkpoint is written. 'immediate': like a crash of the server, WAL replay on start.
   */
  restart(mode?: ShutdownMode): Promise<void>;
  /** Shutdown without starting again (for tests of an unreachable server); `start()` brings it back. */
  halt(mode?: ShutdownMode): Promise<void>;
  start(): Promise<void>;
}

export interface PostgresClusterOptions {
  /** max_connections (default 200: every test file opens a pool of its own). */
  maxConnections?: number;
  /** Loads pg_stat_statements (the load benchmark counts the statements a round sends). */
  statementStats?: boolean;
}

export type ShutdownMode = 'fast' | 'immediate';

const TEST_USER = 'tandemtest';

/** The folder of initdb/pg_ctl: $PG_BIN, else the newest /usr/lib/postgresql/<n>/bin. */
export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(`PostgreSQL is not installed: no ${root}/<version>/bin/initdb (apt-get install postgresql, or set PG_BIN)`);
  }
  return path.join(root, versions[0]!, 'bin');
}

/** uid/gid the server runs as: the current user, or (as root) the unprivileged `tandemtest`, created if missing. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = (): { uid: number; gid: number } | undefined => {
    const r = spawnSync('id', ['-u', TEST_USER], { encoding: 'utf8' });
    if (r.status !== 0) return undefined;
    const g = spawnSync('id', ['-g', TEST_USER], { encoding: 'utf8' });
    return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
  };
  const found = lookup();
  if (found) return found;
  // --system: no home, no login; two processes may race to create it, so look again on failure.
  spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', TEST_USER], { stdio: 'ignore' });
  const created = lookup();
  if (!created) throw new Error(`could not create the unprivileged user ${TEST_USER} for PostgreSQL (useradd failed)`);
  return created;
}

/** A loopback port nobody listens on right now (also used by the cluster harness, bench/cluster/). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL tool as the server's user without blocking the event loop (clients keep running during a restart). */
function run(bin: string, args: string[], user: { uid: number; gid: number } | undefined, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { uid: user?.uid, gid: user?.gid, env: { ...process.env, LC_ALL: 'C' } }, (err, stdout, stderr) => {
      if (!err) return resolve();
      const out = `${stdout}${stderr}`.trim();
      reject(new Error(`${what} failed: ${out || err.message}`));
    });
  });
}

/** Starts a fresh cluster. Call `stop()` when done (an exit hook also stops it if the process ends first). */
export async function startPostgresCluster(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const user = serverUser();
  stopAbandonedClusters(bin, user);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  const dataDir = path.join(dir, 'data');
  const socketDir = path.join(dir, 'sock');
  fs.mkdirSync(socketDir);
  if (user) {
    fs.chownSync(dir, user.uid, user.gid);
    fs.chownSync(socketDir, user.uid, user.gid);
  }
  fs.chmodSync(dir, 0o700);
  const log = path.join(dir, 'server.log');

  try {
    await run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C', '--no-instructions'], user, 'initdb');
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  let port = 0;
  let running = false;
  let stopped = false;
  const settings = (p: number): string =>
    [
      `-p ${p}`,
      `-k ${socketDir}`,
      `-c listen_addresses=127.0.0.1`,
      `-c fsync=off`,
      `-c full_page_writes=off`,
      `-c shared_buffers=16MB`,
      `-c max_connections=${options.maxConnections ?? 200}`,
      `-c max_wal_size=256MB`,
      `-c log_min_messages=warning`,
      ...(options.statementStats ? ['-c shared_preload_libraries=pg_stat_statements', '-c pg_stat_statements.track=all'] : []),
    ].join(' ');

  const firstStart = async (): Promise<void> => {
    // A port taken between choosing and binding (another process on the machine) gets a second try.
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      try {
        await run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', log, '-w', '-t', '60', '-o', settings(port), 'start'], user, 'pg_ctl start');
        running = true;
        return;
      } catch (err) {
        if (attempt >= 2) throw new Error(`${(err as Error).message}\n${readLog(log)}`);
      }
    }
  };
  const halt = async (mode: ShutdownMode = 'fast'): Promise<void> => {
    if (!running) return;
    await run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-w', '-t', '60', '-m', mode, 'stop'], user, 'pg_ctl stop');
    running = false;
  };
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    if (running) spawnSync(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-w', '-m', 'immediate', 'stop'], { stdio: 'ignore', uid: user?.uid, gid: user?.gid });
    running = false;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopNow);

  // Again on the port clients already know (their pools reconnect to it).
  const startAgain = async (): Promise<void> => {
    if (running) return;
    try {
      await run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', log, '-w', '-t', '60', '-o', settings(port), 'start'], user, 'pg_ctl start');
      running = true;
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${readLog(log)}`);
    }
  };

  try {
    await firstStart();
  } catch (err) {
    stopNow();
    throw err;
  }
  return {
    get url() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    get port() {
      return port;
    },
    dir,
    start: startAgain,
    halt,
    restart: async (mode?: ShutdownMode) => {
      await halt(mode);
      await startAgain();
    },
    stop: async () => {
      process.removeListener('exit', stopNow);
      if (running && !stopped) {
        try {
          await halt();
        } catch {
          // fall through to the immediate stop in stopNow
        }
      }
      stopNow();
    },
  };
}

const DIR_PREFIX = 'tandem-pg-';
const OWNER_FILE = 'owner.pid';

/**
 * A test process killed by a signal runs no exit hook, and pg_ctl's server outlives it. Such clusters (their
 * owner process is gone) are stopped and removed here, so a shared machine does not fill up with servers.
 */
function stopAbandonedClusters(bin: string, user: { uid: number; gid: number } | undefined): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    let owner: number;
    try {
      owner = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // not ours, or still being created
    }
    if (!Number.isInteger(owner) || owner <= 0 || isAlive(owner)) continue;
    if (fs.existsSync(path.join(dir, 'data', 'postmaster.pid'))) {
      spawnSync(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-w', '-m', 'immediate', 'stop'], { stdio: 'ignore', uid: user?.uid, gid: user?.gid });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLog(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}
