/**
 * Stable pseudonyms: the pseudonym key's fingerprint is stored in the database at first use, and a server or an
 * export whose DATA_DIR holds another key, or none while the database has a fingerprint, stops with a message
 * naming the folder and how to bring the key, instead of silently writing other pseudonyms. On both engines:
 * real SQLite files and a real PostgreSQL database, a real server, the real export and db:copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE_NAME } from '../../lib/storage';
import { copyDatabase } from '../../lib/storage/copy/copyDatabase';
import { loadOrCreatePseudonymKey, pseudonymKeyFingerprint, pseudonymKeyPath, PseudonymKeyMismatchError } from '../../lib/pseudonym';
import { exportStudy } from '../../research/exports/exportStudy';
import { createLogger } from '../../lib/logger';
import { startServer } from '../../server/app';
import { join, startTestServer, type TestServer } from '../support/integrationHarness';
import { createTestStoreTarget, STORE_ENGINES } from '../support/testStores';
import { tempFolders } from '../support/tempFolders';

const tempFolder = tempFolders('tandem-key-');

describe.each(STORE_ENGINES)('pseudonym key fingerprint (%s)', (engine) => {
  let t: TestServer;
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    const target = await createTestStoreTarget(engine, 'key-fingerprint');
    databaseUrl = target.databaseUrl;
    t = await startTestServer({ engine, dataDir: target.dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
    await join(t, 'travel-planning', { PROLIFIC_PID: `key-${engine}` });
  });
  afterAll(async () => {
    await t?.close();
  });

  const exportWith = (dataDir: string) =>
    exportStudy({ store: t.server.store, dataDir, studyId: 'travel-planning', outDir: path.join(tempFolder(), 'out'), includePilot: false, includeIdentities: false, includeUnconsented: true });

  it('records the fingerprint of the server’s key at its first start', async () => {
    const key = loadOrCreatePseudonymKey(t.dataDir);
    expect(await t.server.store.pseudonymKey.fingerprint()).toBe(pseudonymKeyFingerprint(key));
    expect(pseudonymKeyFingerprint(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(pseudonymKeyFingerprint(key)).not.toContain(key.toString('hex'));
  });

  it('stops an export from a DATA_DIR without the key, naming the folder, and creates no key there', async () => {
    const other = tempFolder();
    const attempt = exportWith(other);
    await expect(attempt).rejects.toBeInstanceOf(PseudonymKeyMismatchError);
    await expect(attempt).rejects.toThrow(`No pseudonym key in ${other} (DATA_DIR)`);
    await expect(attempt).rejects.toThrow(`Copy secrets/pseudonym.key from the DATA_DIR`);
    expect(fs.existsSync(pseudonymKeyPath(other))).toBe(false);
  });

  it('stops an export from a DATA_DIR holding another key, and keeps that key file', async () => {
    const other = tempFolder();
    const otherKey = loadOrCreatePseudonymKey(other);
    await expect(exportWith(other)).rejects.toThrow(`The pseudonym key in ${pseudonymKeyPath(other)} (fingerprint ${pseudonymKeyFingerprint(otherKey).slice(0, 16)}…) is not the key of this database`);
    expect(fs.existsSync(pseudonymKeyPath(other))).toBe(true);
  });

  it('exports from the DATA_DIR with the key, and from a folder the key was copied to', async () => {
    await expect(exportWith(t.dataDir)).resolves.toBeDefined();
    const other = tempFolder();
    fs.mkdirSync(path.join(other, 'secrets'));
    fs.copyFileSync(pseudonymKeyPath(t.dataDir), pseudonymKeyPath(other));
    const a = await exportWith(t.dataDir);
    const b = await exportWith(other);
    expect(fs.readFileSync(path.join(b.outDir, 'sessions.csv'), 'utf8')).toBe(fs.readFileSync(path.join(a.outDir, 'sessions.csv'), 'utf8'));
  });

  it('does not start a node whose DATA_DIR lacks the database’s key (PostgreSQL: same database; SQLite: a db:copy)', async () => {
    const other = tempFolder();
    const url = databaseUrl;
    if (engine === 'sqlite') {
      const report = await copyDatabase({ from: path.join(t.dataDir, DATABASE_FILE_NAME), to: path.join(other, DATABASE_FILE_NAME) });
      expect(report.tables.find((x) => x.table === 'pseudonym_key')?.rows).toBe(1);
    }
    const start = () => startServer({ dataDir: other, databaseUrl: url, port: 0, host: '127.0.0.1', env: {}, logger: createLogger('silent') });
    await expect(start()).rejects.toThrow(`No pseudonym key in ${other} (DATA_DIR)`);
    // With the key brought over, it starts.
    fs.mkdirSync(path.join(other, 'secrets'), { recursive: true });
    fs.copyFileSync(pseudonymKeyPath(t.dataDir), pseudonymKeyPath(other));
    const node = await start();
    await node.close();
  });
});
