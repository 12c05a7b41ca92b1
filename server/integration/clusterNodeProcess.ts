/**
 * Child-process entry for cluster.test.ts: one Tandem node on DATABASE_URL (PostgreSQL shared with the test's
 * other nodes), its assistant pointed at PROVIDER_BASE_URL (the test's fake OpenAI server). Node name and lease
 * timings come from TANDEM_NODE_ID / TANDEM_LEASE_* as in production. The test SIGKILLs it to kill a node.
 * Prints `READY {"url"}` once listening; SIGTERM closes it gracefully.
 */
import { startServer } from '../app';
import { createLogger } from '../logger';

const { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PROVIDER_BASE_URL: baseURL } = process.env;
if (!dataDir || !databaseUrl || !baseURL) throw new Error('DATA_DIR, DATABASE_URL and PROVIDER_BASE_URL are required');

const server = await startServer({
  dataDir,
  databaseUrl,
  port: 0,
  host: '127.0.0.1',
  openai: { baseURL, apiKey: 'cluster-test', timeoutMs: 30_000, maxAttempts: 1 },
  env: {},
  logger: createLogger('warn'),
});
process.stdout.write(`READY ${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
