/**
 * `npm start`: serves the platform. Env: PORT (3000), HOST (0.0.0.0), DATA_DIR (./data),
 * OPENAI_API_KEY / OPENAI_BASE_URL (without a key the offline demo assistant answers), LOG_LEVEL,
 * TRUST_PROXY (express 'trust proxy': loopback by default; see server/trustProxy.ts),
 * PROVIDER_THREAD (on | off, default off; on: OpenAI-compatible calls run on a worker thread; see BENCHMARKS.md),
 * DATABASE_URL (postgres://… selects the PostgreSQL store; unset: SQLite at DATA_DIR/tandem.sqlite; docs/storage.md),
 * SESSION_STORAGE_BUDGET_MB (20) and DRAFT_EVENT_INTERVAL_SECONDS (5) (server/services/storageBudget.ts).
 * Several nodes (docs/cluster.md): REDIS_URL (redis://host:6379: socket adapter and shared rate limits),
 * SOCKET_ADAPTER (redis | postgres | none; default redis with REDIS_URL, else none), TANDEM_NODE_ID (this node's
 * name; default host:pid:random). GET /healthz reports the node, its database and its adapter.
 */
import path from 'node:path';
import { startTandem } from './startTandem';
import { ConfigError } from '../lib/studyFiles/studyConfig';
import { createLogger } from '../lib/logger';
import { trustProxyFromEnv, type TrustProxy } from '../server/trustProxy';
import { storagePolicyFromEnv, type StoragePolicy } from '../server/services/storagePolicy';
import { prolificStudyLink, testStudyLink } from '../common/studyLink';
import { clusterOptionsFromEnv, type ClusterOptions } from '../server/cluster/clusterOptions';
import { nodeIdFromEnv } from '../server/cluster/nodeIdentity';
import { PseudonymKeyMismatchError } from '../lib/pseudonym';
import { RedisConnectError } from '../server/cluster/redisConnection';

const log = createLogger();
const providerThread = process.env.PROVIDER_THREAD ?? 'off';
if (providerThread !== 'on' && providerThread !== 'off') {
  console.error(`PROVIDER_THREAD must be "on" or "off", got "${providerThread}"`);
  process.exit(1);
}
const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got "${process.env.PORT}"`);
  process.exit(1);
}

let trustProxy: TrustProxy;
let storage: StoragePolicy;
let cluster: ClusterOptions;
let nodeId: string;
try {
  trustProxy = trustProxyFromEnv(process.env.TRUST_PROXY);
  storage = storagePolicyFromEnv(process.env);
  cluster = clusterOptionsFromEnv(process.env);
  nodeId = nodeIdFromEnv(process.env);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

try {
  const server = await startTandem({
    trustProxy,
    storage,
    dataDir: path.resolve(process.env.DATA_DIR ?? 'data'),
    databaseUrl: process.env.DATABASE_URL,
    port,
    host: process.env.HOST ?? '0.0.0.0',
    providerThread: providerThread === 'on',
    cluster,
    nodeId,
    logger: log,
  });
  const base = `http://localhost:${server.port}`;
  const lines = [
    `Tandem is running on ${base}`,
    `Database: ${server.store.description}`,
    ...(server.adapterKind !== 'none' ? [`Cluster node ${server.nodeId} (socket adapter: ${server.adapterKind})`] : []),
    'Study links: (for Prolific, with its per-visit SESSION_ID; use your public address)',
  ];
  for (const study of server.config.studies.values()) lines.push(`  ${prolificStudyLink(base, study.id)}   (${study.title})`);
  lines.push('To try a study yourself:');
  for (const study of server.config.studies.values()) lines.push(`  ${testStudyLink(base, study.id)}`);
  // The generated password is printed once, at the first start; every start says how to reset it.
  lines.push(
    process.env.ADMIN_PASSWORD
      ? `Researcher dashboard: ${base}/admin (password from ADMIN_PASSWORD)`
      : `Researcher dashboard: ${base}/admin (forgot the password? restart with ADMIN_PASSWORD='a new password of 10+ characters' npm start)`,
  );
  if (!process.env.OPENAI_API_KEY) lines.push('No OPENAI_API_KEY set: the offline demo assistant answers.');
  console.log(lines.join('\n'));
  const stop = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
} catch (err) {
  if (err instanceof ConfigError || err instanceof RedisConnectError || err instanceof PseudonymKeyMismatchError) {
    console.error(err.message);
    process.exit(1);
  }
  // An unreachable DATABASE_URL: one line (host, port, the driver's reason), no stack trace.
  if (process.env.DATABASE_URL) {
    const { describeStartupError } = await import('../lib/storage/postgres');
    const line = describeStartupError(err);
    if (line) {
      console.error(line);
      process.exit(1);
    }
  }
  throw err;
}
