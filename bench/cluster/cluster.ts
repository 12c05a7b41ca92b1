import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresPids } from '../../tests/harness/postgresCpu';
import { ServerChild } from '../../tests/harness/serverChild';
import { freePort, postgresBinDir, startPostgresCluster, type ShutdownMode } from '../../tests/support/postgresCluster';
import { Daemon, findCommand } from './daemon';
import { renderHaproxyConfig } from './haproxyConfig';
import { Reaper } from './reaper';

/**
 * A throwaway Tandem cluster on loopback, for benchmarks, fault runs and tests (and `npm run cluster`):
 * PostgreSQL (tests/support/postgresCluster.ts), Redis, N nodes sharing one DATA_DIR (the pseudonym key and
 * uploads must be the same on every node) and HAProxy rendered from deploy/haproxy.cfg.
 *
 *   const c = await startCluster({ nodes: 3, providerBaseURL: fake.url });
 *   c.url                       // http://127.0.0.1:PORT — through HAProxy
 *   await c.nodes[0].kill('SIGKILL'); await c.nodes[0].restart();
 *   await c.redis.restart(); await c.postgres.restart();
 *   await c.stop();
 *
 * No orphans: an orphan guard (reaper.ts) signals every process and removes the temp folders if this process
 * dies without calling stop(); redis and haproxy run in their own process groups, PostgreSQL's postmaster in
 * the one pg_ctl gives it.
 */
export type AdapterKind = 'redis' | 'postgres' | 'none';

export interface ClusterOptions {
  nodes: number;
  /** OpenAI-compatible …/v1 every node's provider calls go to. */
  providerBaseURL: string;
  /** The public HAProxy port (default: a free one). */
  port?: number;
  /** The socket.io adapter (SOCKET_ADAPTER); 'none' starts no Redis and gives the nodes no REDIS_URL. Default 'redis'. */
  adapter?: AdapterKind;
  /** Extra environment for every node (LOG_LEVEL, PROVIDER_THREAD, …). */
  nodeEnv?: Record<string, string>;
  echoNodeStderr?: boolean;
  /** Progress lines (default: silent). */
  onLog?: (line: string) => void;
}

export interface ClusterPids {
  nodes: number[];
  haproxy: number | undefined;
  redis: number | undefined;
  postgres: number[];
}

export interface ClusterNode {
  readonly id: string;
  readonly port: number;
  readonly url: string;
  readonly pid: number | undefined;
  readonly alive: boolean;
  /** SIGKILL (default: a crash, nothing runs) or another signal (SIGTERM: graceful close); resolves once it has gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (after kill), waits for its /healthz. */
  restart(): Promise<void>;
  stderrTail(): string;
}

export interface Cluster {
  /** Through HAProxy. */
  readonly url: string;
  readonly statsUrl: string;
  readonly nodes: readonly ClusterNode[];
  readonly databaseUrl: string;
  readonly redisUrl: string | null;
  readonly dataDir: string;
  readonly adapter: AdapterKind;
  redis: { restart(signal?: NodeJS.Signals): Promise<void> };
  postgres: { restart(mode?: ShutdownMode): Promise<void> };
  /** The pids serving right now, to measure their CPU (PostgreSQL: the postmaster and its children). */
  pids(): ClusterPids;
  /** HAProxy's view of each node ('UP', 'DOWN', …) from its stats page. */
  backendStatus(): Promise<Record<string, string>>;
  /** Stops nodes (graceful), HAProxy, Redis and PostgreSQL, and removes the temp folders. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startCluster(o: ClusterOptions): Promise<Cluster> {
  if (!Number.isInteger(o.nodes) || o.nodes < 1 || o.nodes > 16) throw new Error(`nodes: 1–16, got ${o.nodes}`);
  const adapter = o.adapter ?? 'redis';
  const log = o.onLog ?? (() => {});
  const missing = missingClusterTools(adapter);
  if (missing) throw new Error(missing);
  const reaper = new Reaper();
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
    await reaper.close();
  };
  try {
    const pg = await startPostgresCluster();
    const watchPostmaster = (() => {
      let current: number | undefined;
      return () => {
        reaper.forget(current);
        current = Number(readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
        reaper.watch(current, { group: true, signal: 'SIGQUIT' }); // SIGQUIT: PostgreSQL's immediate shutdown
      };
    })();
    watchPostmaster();
    reaper.removeOnDeath(pg.dir);
    stops.push(async () => {
      await pg.stop();
      reaper.forgetDir(pg.dir);
    });
    log(`postgres  ${pg.url}`);

    let redisUrl: string | null = null;
    let redis: Daemon | null = null;
    if (adapter !== 'none') {
      const redisPort = await freePort();
      const redisDir = mkdtempSync(join(tmpdir(), 'tandem-redis-'));
      reaper.removeOnDeath(redisDir);
      redis = new Daemon({
        name: 'redis-server',
        command: findCommand('redis-server')!,
        // No persistence: a restart loses the streams, as a Redis crash without AOF would (the adapter must cope).
        args: ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'],
        port: redisPort,
        onPid: (pid, previous) => {
          reaper.forget(previous);
          reaper.watch(pid, { group: true });
        },
      });
      await redis.start();
      const started = redis;
      stops.push(async () => {
        await started.stop();
        rmSync(redisDir, { recursive: true, force: true });
      });
      redisUrl = `redis://127.0.0.1:${redisPort}`;
      log(`redis     ${redisUrl}`);
    }

    const dataDir = mkdtempSync(join(tmpdir(), 'tandem-cluster-'));
    reaper.removeOnDeath(dataDir);
    stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));

    const nodes: HarnessNode[] = [];
    stops.push(async () => {
      for (const n of nodes) await n.kill('SIGTERM');
    });
    for (let i = 1; i <= o.nodes; i++) {
      // One after another: the first start runs the migrations; later ones find them applied.
      const node = new HarnessNode(`node${i}`, reaper, {
        providerBaseURL: o.providerBaseURL,
        dataDir,
        databaseUrl: pg.url,
        env: {
          TANDEM_NODE_ID: `node${i}`,
          SOCKET_ADAPTER: adapter,
          ...(redisUrl ? { REDIS_URL: redisUrl } : { REDIS_URL: '' }),
          ...o.nodeEnv,
        },
        ...(o.echoNodeStderr ? { echoStderr: true } : {}),
        // A node restarted while the others serve hundreds of participants can take long on a shared 2-core box.
        readyTimeoutMs: 120_000,
      });
      nodes.push(node);
      await node.restart();
      log(`${node.id}     ${node.url} (pid ${node.pid})`);
    }

    const port = o.port ?? (await freePort());
    const statsPort = await freePort();
    const cfgDir = mkdtempSync(join(tmpdir(), 'tandem-haproxy-'));
    reaper.removeOnDeath(cfgDir);
    const cfgFile = join(cfgDir, 'haproxy.cfg');
    writeFileSync(cfgFile, renderHaproxyConfig({ port, statsPort, nodes: nodes.map((n) => ({ name: n.id, port: n.port })) }));
    const haproxy = new Daemon({
      name: 'haproxy',
      command: findCommand('haproxy')!,
      args: ['-db', '-f', cfgFile], // -db: foreground, no daemon
      port,
      onPid: (pid, previous) => {
        reaper.forget(previous);
        reaper.watch(pid, { group: true });
      },
    });
    await haproxy.start();
    stops.push(async () => {
      await haproxy.stop();
      rmSync(cfgDir, { recursive: true, force: true });
    });
    const statsUrl = `http://127.0.0.1:${statsPort}/`;
    const backendStatus = async (): Promise<Record<string, string>> => {
      const csv = await (await fetch(`${statsUrl};csv`)).text();
      const rows = csv.split('\n').map((l) => l.split(','));
      return Object.fromEntries(rows.filter((r) => r[0] === 'tandem_nodes' && r[1] !== 'BACKEND').map((r) => [r[1]!, r[17]!]));
    };
    // HAProxy starts with every server assumed up; wait for its checks to agree, so the first requests land.
    await waitFor(async () => Object.values(await backendStatus()).every((s) => s === 'UP'), 20_000, () => `HAProxy never saw every node UP: ${haproxy.outputTail()}`);
    const url = `http://127.0.0.1:${port}`;
    log(`haproxy   ${url} (stats ${statsUrl})`);

    let stopped: Promise<void> | null = null;
    return {
      url,
      statsUrl,
      nodes,
      databaseUrl: pg.url,
      redisUrl,
      dataDir,
      adapter,
      redis: {
        restart: async (signal) => {
          if (!redis) throw new Error('this cluster runs without Redis (adapter none)');
          await redis.restart(signal);
        },
      },
      postgres: {
        restart: async (mode) => {
          await pg.restart(mode);
          watchPostmaster();
        },
      },
      backendStatus,
      pids: () => ({
        nodes: nodes.flatMap((n) => (n.pid === undefined ? [] : [n.pid])),
        haproxy: haproxy.pid,
        redis: redis?.pid,
        postgres: postgresPids(pg.dir),
      }),
      stop: () => (stopped ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Why a cluster cannot start on this machine (a tool is missing), or null. */
export function missingClusterTools(adapter: AdapterKind = 'redis'): string | null {
  try {
    postgresBinDir();
  } catch (err) {
    return (err as Error).message;
  }
  const need = ['haproxy', ...(adapter === 'none' ? [] : ['redis-server'])];
  const missing = need.filter((c) => !findCommand(c));
  return missing.length ? `the cluster harness needs ${missing.join(' and ')} (Debian: apt-get install ${missing.join(' ')})` : null;
}

class HarnessNode implements ClusterNode {
  private readonly server: ServerChild;

  constructor(
    readonly id: string,
    private readonly reaper: Reaper,
    options: ConstructorParameters<typeof ServerChild>[0],
  ) {
    this.server = new ServerChild(options);
  }

  get port(): number {
    return Number(new URL(this.server.url).port);
  }
  get url(): string {
    return this.server.url;
  }
  get pid(): number | undefined {
    return this.server.pid;
  }
  get alive(): boolean {
    return this.server.alive;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.server.alive) return;
    const pid = this.server.pid;
    if (signal === 'SIGKILL') await this.server.crash();
    else if (signal === 'SIGTERM') await this.server.stop();
    else {
      process.kill(pid!, signal);
      await waitFor(async () => !this.server.alive, 30_000, () => `${this.id} did not exit on ${signal}`);
    }
    this.reaper.forget(pid);
  }

  /** Like systemd's Restart=always (deploy/systemd/tandem@.service): a start that fails (e.g. PostgreSQL is restarting) is tried again. */
  async restart(): Promise<void> {
    if (this.server.alive) await this.kill('SIGKILL');
    for (let attempt = 1; ; attempt++) {
      try {
        await this.server.restart();
        break;
      } catch (err) {
        if (attempt >= 10) throw err;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
    this.reaper.watch(this.server.pid);
    await waitFor(() => healthy(this.server.url), 60_000, () => `${this.id} never answered /healthz with 200:\n${this.server.stderrTail()}`);
  }

  stderrTail(): string {
    return this.server.stderrTail();
  }
}

async function healthy(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, why: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((r) => setTimeout(r, 100));
  }
}
