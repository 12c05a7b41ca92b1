/**
 * Child-process entry for the Tandem server under test (crash, fault and load runs), so it can be
 * SIGKILLed and restarted on the same DATA_DIR and port. Env:
 *   DATA_DIR (required), DATABASE_URL (postgres://…; empty: SQLite in DATA_DIR), PORT (0 = random), PROVIDER_BASE_URL (OpenAI-compatible …/v1; required),
 *   PROVIDER_TIMEOUT_MS (per attempt, default 10000), PROVIDER_MAX_ATTEMPTS (3), PROVIDER_BACKOFF_MS (50),
 *   REPLY_TIMEOUT_MS (60000), JOIN_RATE_LIMIT (100000), LOG_LEVEL (warn),
 *   PROVIDER_THREAD (on | off: provider calls on a worker thread or on the event loop; default off),
 *   REDIS_URL, SOCKET_ADAPTER, TANDEM_NODE_ID (a cluster node: server/cluster/clusterOptions.ts; unset: a single node),
 *   STUDIES_DIR (default the repository's studies/: the bench's group mode writes a study of its own),
 *   TANDEM_SQLITE_METER (a file: time every SQLite statement on the event loop, sqliteMeter.ts; on each SIGUSR2 and
 *   at SIGTERM a JSON line with the totals so far is appended to the file).
 * Prints `READY {"url","port"}` once listening, and `STATS {"eventLoopDelayMs":{p50,p99,max},"eventLoopUtilization":{whole,busiest10s}}` on SIGTERM.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTandem } from '../../wiring/startTandem';
import { startEventLoopUse } from './eventLoopUse';
import { createLogger } from '../../lib/logger';
import { clusterOptionsFromEnv } from '../../server/cluster/clusterOptions';
import { announceReady } from './childProcess';
import { installSqliteMeter } from './sqliteMeter';

const env = process.env;
const need = (name: string): string => {
  const v = env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const meterFile = env.TANDEM_SQLITE_METER;
const sqliteMeter = meterFile ? installSqliteMeter() : undefined;
const writeMeter = () => {
  if (meterFile && sqliteMeter) fs.appendFileSync(meterFile, `${JSON.stringify(sqliteMeter.snapshot())}\n`);
};
// Only when asked: otherwise SIGUSR2 keeps its default action.
if (sqliteMeter) process.on('SIGUSR2', writeMeter);

const server = await startTandem({
  dataDir: need('DATA_DIR'),
  databaseUrl: env.DATABASE_URL,
  port: Number(env.PORT ?? 0),
  ...(env.STUDIES_DIR ? { studiesDir: env.STUDIES_DIR } : {}),
  host: '127.0.0.1',
  openai: {
    baseURL: need('PROVIDER_BASE_URL'),
    apiKey: 'harness',
    timeoutMs: Number(env.PROVIDER_TIMEOUT_MS ?? 10_000),
    maxAttempts: Number(env.PROVIDER_MAX_ATTEMPTS ?? 3),
    backoffBaseMs: Number(env.PROVIDER_BACKOFF_MS ?? 50),
    backoffMaxMs: 1_000,
  },
  env: { OPENAI_API_KEY: 'harness' },
  replyTimeoutMs: Number(env.REPLY_TIMEOUT_MS ?? 60_000),
  providerThread: env.PROVIDER_THREAD === 'on',
  joinRateLimitPerMinute: Number(env.JOIN_RATE_LIMIT ?? 100_000),
  cluster: clusterOptionsFromEnv(env),
  // The node's name comes from TANDEM_NODE_ID in startServer: unset, it is a single node that takes over its
  // previous run's replies at once.
  logger: createLogger(env.LOG_LEVEL ?? 'warn'),
});
// The server's own event-loop delay (ms) and utilisation (share of time the loop was busy: whole run, and its
// busiest 10 s), printed as `STATS {...}` on SIGTERM for the load benchmark. At 1.0 every event waits for a turn.
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
const eventLoopUse = startEventLoopUse();
announceReady({ url: server.url, port: server.port });
process.once('SIGTERM', () => {
  writeMeter();
  lag.disable();
  const ms = (ns: number) => Math.max(0, ns / 1e6 - 10); // beyond the 10 ms sampling period
  const eventLoopUtilization = eventLoopUse();
  process.stdout.write(`STATS ${JSON.stringify({ eventLoopDelayMs: { p50: ms(lag.percentile(50)), p99: ms(lag.percentile(99)), max: ms(lag.max) }, eventLoopUtilization })}\n`);
  void server.close().then(() => process.exit(0));
});
