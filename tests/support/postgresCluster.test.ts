import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startPostgresCluster, type PostgresCluster } from './postgresCluster';
import { createTestDatabaseUrl } from './postgresTestDatabase';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('startPostgresCluster', () => {
  let cluster: PostgresCluster | undefined;
  afterAll(async () => cluster?.stop());

  it('runs a real PostgreSQL as an unprivileged user, survives a restart, and removes its folder when stopped', async () => {
    cluster = await startPostgresCluster();
    const [v] = await query<{ server_version_num: string }>(cluster.url, 'SHOW server_version_num');
    expect(Number(v!.server_version_num)).toBeGreaterThanOrEqual(150000);
    const [f] = await query<{ fsync: string }>(cluster.url, 'SHOW fsync');
    expect(f!.fsync).toBe('off');
    // The data directory belongs to the server's user; as root that must not be root (postgres refuses it anyway).
    const owner = fs.statSync(`${cluster.dir}/data`).uid;
    if (process.getuid?.() === 0) expect(owner).not.toBe(0);
    else expect(owner).toBe(process.getuid?.());

    await query(cluster.url, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
    const port = cluster.port;
    await cluster.restart();
    expect(cluster.port).toBe(port);
    expect(await query<{ n: number }>(cluster.url, 'SELECT n FROM kept')).toEqual([{ n: 42 }]);

    const dir = cluster.dir;
    await cluster.stop();
    expect(fs.existsSync(dir)).toBe(false);
    await expect(query(cluster.url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    cluster = undefined;
  });
});

describe('a cluster whose test process was killed', () => {
  it('is stopped and removed by the next startPostgresCluster', async () => {
    // A child process starts a cluster, prints its folder and port, and is SIGKILLed (no exit hook runs).
    const script = `import { startPostgresCluster } from ${JSON.stringify(path.resolve(import.meta.dirname, 'postgresCluster.ts'))};
      const c = await startPostgresCluster(); console.log(JSON.stringify({ dir: c.dir, url: c.url })); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString())));
    const abandoned = JSON.parse(line) as { dir: string; url: string };
    await query(abandoned.url, 'SELECT 1');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // Still running after its owner died…
    const ownerPid = Number(fs.readFileSync(path.join(abandoned.dir, 'owner.pid'), 'utf8'));
    expect(() => process.kill(ownerPid, 0)).toThrow();
    await query(abandoned.url, 'SELECT 1');
    // …until the next start cleans it up.
    const next = await startPostgresCluster();
    try {
      expect(fs.existsSync(abandoned.dir)).toBe(false);
      await expect(query(abandoned.url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await next.stop();
    }
  });
});

describe('createTestDatabaseUrl', () => {
  it('gives each call an empty database of its own in the shared cluster', async () => {
    const a = await createTestDatabaseUrl('cluster a');
    const b = await createTestDatabaseUrl('cluster a');
    expect(a).not.toBe(b);
    await query(a, 'CREATE TABLE only_in_a (n int)');
    const tables = (url: string) => query<{ table_name: string }>(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
    expect(await tables(a)).toEqual([{ table_name: 'only_in_a' }]);
    expect(await tables(b)).toEqual([]);
  });
});
