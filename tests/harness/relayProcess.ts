/**
 * Child-process entry for the bare relay baseline (relay.ts). Env: PROVIDER_BASE_URL, PORT (0), RELAY_READER (sdk | tandem).
 * Prints `STATS {"eventLoopUtilization":{whole,busiest10s}}` on SIGTERM, as the server child does.
 */
import { announceReady } from './childProcess';
import { startEventLoopUse } from './eventLoopUse';
import { startRelay } from './relay';
import type { StreamReader } from './streamReaders';

const baseURL = process.env.PROVIDER_BASE_URL;
if (!baseURL) throw new Error('PROVIDER_BASE_URL is required');
const reader = process.env.RELAY_READER ?? 'sdk';
if (reader !== 'sdk' && reader !== 'tandem') throw new Error(`RELAY_READER must be "sdk" or "tandem", got "${reader}"`);
const relay = await startRelay({ providerBaseURL: baseURL, port: Number(process.env.PORT ?? 0), reader: reader as StreamReader });
const eventLoopUse = startEventLoopUse();
announceReady({ url: relay.url });
process.on('SIGTERM', () => {
  process.stdout.write(`STATS ${JSON.stringify({ eventLoopUtilization: eventLoopUse() })}\n`);
  void relay.close().then(() => process.exit(0));
});
