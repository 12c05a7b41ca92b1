/**
 * Reads retried while PostgreSQL is briefly away: a throwaway PostgreSQL cluster is halted, a read through the
 * real store waits for it instead of failing, and reports how long it waited; an outage longer than the budget
 * and errors that are not an outage are thrown as before. (The server under a restart, where replies whose
 * history read meets the outage are answered rather than stored as errors: lib/storage/postgres/restartUnderLoad.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresCluster, type PostgresCluster } from '../../tests/support/postgresCluster';
import { openStore, type Store } from '../../lib/storage';
import { createLogger } from '../../lib/logger';
import { isStoreUnavailable } from '../../lib/storage';
import { retryWhileUnavailable } from './storeRetry';

const log = createLogger('silent');

describe('retryWhileUnavailable on a real PostgreSQL store', () => {
  let cluster: PostgresCluster;
  let store: Store;
  beforeAll(async () => {
    cluster = await startPostgresCluster({ maxConnections: 30 });
    store = await openStore({ dataDir: '/nonexistent', databaseUrl: cluster.url });
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it('waits through a restart and reports the wait', async () => {
    expect(await store.sessions.get('none')).toBeUndefined();
    await cluster.halt('fast');
    // Without the retry the read fails at once.
    await expect(store.sessions.get('none')).rejects.toSatisfy(isStoreUnavailable);
    const back = new Promise<void>((resolve, reject) => setTimeout(() => cluster.start().then(resolve, reject), 700));
    const read = await retryWhileUnavailable({ log }, 'a session', () => store.sessions.get('none'));
    await back;
    expect(read.value).toBeUndefined();
    expect(read.waitedMs).toBeGreaterThanOrEqual(600);
    expect(read.waitedMs).toBeLessThan(15_000);
  });

  it('gives up after its budget, and never retries an error that is not an outage', async () => {
    await cluster.halt('fast');
    const started = performance.now();
    await expect(retryWhileUnavailable({ log }, 'a session', () => store.sessions.get('none'), 500)).rejects.toSatisfy(isStoreUnavailable);
    expect(performance.now() - started).toBeLessThan(2_000);
    await cluster.start();
    let calls = 0;
    await expect(
      retryWhileUnavailable({ log }, 'a bad statement', () => {
        calls++;
        return Promise.reject(new Error('syntax error'));
      }),
    ).rejects.toThrow('syntax error');
    expect(calls).toBe(1);
  });
});
