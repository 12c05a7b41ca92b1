/**
 * Child-process entry: runs the timed provider (timedProvider.ts) on its own core-share so that the
 * provider's timers do not compete with the server's event loop. Options from env:
 * TOKENS_PER_REPLY (200), TOKENS_PER_SECOND (50), MARK_EVERY (1: stamp every token), PORT (0).
 */
import { announceReady } from './childProcess';
import { startTimedProvider } from './timedProvider';

const provider = await startTimedProvider({
  tokensPerReply: Number(process.env.TOKENS_PER_REPLY ?? 200),
  tokensPerSecond: Number(process.env.TOKENS_PER_SECOND ?? 50),
  markEvery: Number(process.env.MARK_EVERY ?? 1),
  port: Number(process.env.PORT ?? 0),
});
announceReady({ url: provider.url, baseURL: provider.baseURL });
process.on('SIGTERM', () => void provider.close().then(() => process.exit(0)));
