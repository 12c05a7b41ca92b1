/**
 * Fresh, empty PostgreSQL databases in the cluster the vitest globalSetup started
 * (tests/support/postgresGlobalSetup.ts):
 *
 *   const url = await createTestDatabaseUrl('messages');   // postgres://…/t_messages_<pid>_<n>_<rand>
 *   const store = await openPostgresStore(url);             // migrates the empty database
 *
 * Databases are not dropped: the cluster and its folder are removed when the run ends.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

let counter = 0;

/** The run's cluster superuser URL; throws with the reason when there is none. */
export function postgresAdminUrl(): string {
  const url = inject('postgresAdminUrl');
  if (!url) {
    throw new Error(
      process.env.TANDEM_TEST_POSTGRES === 'off'
        ? 'PostgreSQL tests need a cluster, but TANDEM_TEST_POSTGRES=off'
        : 'no PostgreSQL cluster: vitest.config.ts must list tests/support/postgresGlobalSetup.ts in globalSetup',
    );
  }
  return url;
}

/** Whether this run has a PostgreSQL cluster (false only with TANDEM_TEST_POSTGRES=off). */
export function hasPostgresCluster(): boolean {
  return Boolean(inject('postgresAdminUrl'));
}

/** Creates an empty database named after `label` and returns its URL. */
export async function createTestDatabaseUrl(label = 'test'): Promise<string> {
  const admin = postgresAdminUrl();
  const safe = label.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 30);
  const name = `t_${safe}_${process.pid}_${++counter}_${crypto.randomBytes(3).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    // template0: never connected to, so concurrent CREATE DATABASE from several workers cannot collide on it.
    await client.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
