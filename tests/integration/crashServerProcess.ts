/**
 * Child-process entry for crashCheckpoint.test.ts and cluster.test.ts: the real server on DATA_DIR (and on
 * DATABASE_URL when set: a PostgreSQL shared with other nodes), its assistant pointed at PROVIDER_BASE_URL (the
 * test's fake OpenAI server), so the test can SIGKILL it mid-reply and start it again. Node name and lease
 * timings come from TANDEM_NODE_ID / TANDEM_LEASE_* as in production. STUDIES_DIR / SURVEYS_DIR replace the
 * repository's studies and surveys (server/wizard/wizardCrash.test.ts).
 * Prints `READY {"url"}` once listening; SIGTERM closes it gracefully.
 */
import { startTandem } from '../../wiring/startTandem';
import { createLogger } from '../../lib/logger';

const dataDir = process.env.DATA_DIR;
const baseURL = process.env.PROVIDER_BASE_URL;
if (!dataDir || !baseURL) throw new Error('DATA_DIR and PROVIDER_BASE_URL are required');

const server = await startTandem({
  dataDir,
  ...(process.env.STUDIES_DIR ? { studiesDir: process.env.STUDIES_DIR } : {}),
  ...(process.env.SURVEYS_DIR ? { surveysDir: process.env.SURVEYS_DIR } : {}),
  databaseUrl: process.env.DATABASE_URL || undefined,
  port: 0,
  host: '127.0.0.1',
  openai: { baseURL, apiKey: 'crash-test', timeoutMs: 10_000, maxAttempts: 1 },
  env: {},
  logger: createLogger('warn'),
});
process.stdout.write(`READY ${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
