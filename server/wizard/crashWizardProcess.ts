/**
 * Child-process entry for wizardCrash.test.ts: the real server on DATA_DIR with the studies of STUDIES_DIR, its
 * model at PROVIDER_BASE_URL (the test's fake OpenAI server), so the test can SIGKILL it while a draft waits for
 * review and start it again. ADMIN_PASSWORD comes from the environment. Prints `READY {"url"}` once listening.
 */
import path from 'node:path';
import { startServer } from '../app';
import { createLogger } from '../logger';

const { DATA_DIR: dataDir, PROVIDER_BASE_URL: baseURL, STUDIES_DIR: studiesDir } = process.env;
if (!dataDir || !baseURL || !studiesDir) throw new Error('DATA_DIR, PROVIDER_BASE_URL and STUDIES_DIR are required');

const server = await startServer({
  dataDir,
  studiesDir,
  surveysDir: path.resolve(import.meta.dirname, '../../surveys'),
  port: 0,
  host: '127.0.0.1',
  openai: { baseURL, apiKey: 'crash-test', timeoutMs: 10_000, maxAttempts: 1 },
  env: {},
  logger: createLogger('warn'),
});
process.stdout.write(`READY ${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
