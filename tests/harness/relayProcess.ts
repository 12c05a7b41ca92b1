/** Child-process entry for the bare relay baseline (relay.ts). Env: PROVIDER_BASE_URL, PORT (0). */
import { announceReady } from './childProcess';
import { startRelay } from './relay';

const baseURL = process.env.PROVIDER_BASE_URL;
if (!baseURL) throw new Error('PROVIDER_BASE_URL is required');
const relay = await startRelay({ providerBaseURL: baseURL, port: Number(process.env.PORT ?? 0) });
announceReady({ url: relay.url });
process.on('SIGTERM', () => void relay.close().then(() => process.exit(0)));
