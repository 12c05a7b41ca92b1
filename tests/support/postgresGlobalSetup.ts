/**
 * vitest globalSetup: one throwaway PostgreSQL cluster for the whole run (tests/support/postgresCluster.ts),
 * handed to the test workers as `inject('postgresAdminUrl')`. Each test file then makes databases of its own
 * with createTestDatabaseUrl() (tests/support/postgresTestDatabase.ts), so files never share rows.
 *
 * TANDEM_TEST_POSTGRES=off skips the cluster (a machine without PostgreSQL); the PostgreSQL variants of the
 * storage tests then fail with a message saying so rather than pass without running.
 */
import type { TestProject } from 'vitest/node';
import { startPostgresCluster, type PostgresCluster } from './postgresCluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's PostgreSQL cluster, or '' when TANDEM_TEST_POSTGRES=off. */
    postgresAdminUrl: string;
  }
}

let cluster: PostgresCluster | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.TANDEM_TEST_POSTGRES === 'off') {
    project.provide('postgresAdminUrl', '');
    return async () => {};
  }
  cluster = await startPostgresCluster({ maxConnections: 300 });
  project.provide('postgresAdminUrl', cluster.url);
  return async () => {
    await cluster?.stop();
    cluster = undefined;
  };
}
