/**
 * Child-process entry for crashCheckpoint.test.ts and cluster.test.ts: the real server on DATA_DIR (and on
 * DATABASE_URL when set: a PostgreSQL shared with other nodes), its assistant pointed at PROVIDER_BASE_URL (the
 * test's fake OpenAI server), so the test can SIGKILL it mid-reply and start it again. Node name and lease
 * timings come from TANDEM_NODE_ID / TANDEM_LEASE_* as in production.
 * Prints `READY {"url"}` once listening; SIGTERM closes it gracefully.
 */
import { startServer } from '../app';
import { createLogger } from '../logger';

const dataDir = process.env.DATA_DIR;
const baseURL = process.env.PROVIDER_BASE_URL;
if (!dataDir || !baseURL) throw new Error('DATA_DIR and PROVIDER_BASE_URL are required');

const server = await startServer({
  dataDir,
  databaseUrl: process.env.DATABASE_URL || undefined,
  port: 0,
  host: '127.0.0.1',
  openai: { baseURL, apiKey: 'crash-test', timeoutMs: 10_000, maxAttempts: 1 },
  env: {},
  logger: createLogger('warn'),
});
process.stdout.write(`READY ${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
