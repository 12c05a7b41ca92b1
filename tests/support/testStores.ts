/**
 * Fresh, empty stores of each engine for tests that touch storage:
 *
 *   describe.each(STORE_ENGINES)('messages (%s)', (engine) => {
 *     const store = await openTestStore(engine, 'messages');
 *
 * SQLite: a new file in a temp folder. PostgreSQL: a new database in the run's throwaway cluster
 * (tests/support/postgresGlobalSetup.ts, tests/support/postgresTestDatabase.ts). Never a mock.
 * PostgreSQL is in STORE_ENGINES unless TANDEM_TEST_POSTGRES=off or the PostgreSQL store module is absent.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store, type StoreEngine } from '../../lib/storage';

const postgresModuleFile = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../lib/storage/postgres/index.ts');

/** The engines this run tests against. */
export const STORE_ENGINES: StoreEngine[] =
  process.env.TANDEM_TEST_POSTGRES !== 'off' && fs.existsSync(postgresModuleFile) ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestStoreTarget {
  /** Pass to startServer({dataDir, databaseUrl}) or openStore. */
  dataDir: string;
  databaseUrl: string | undefined;
}

/** A fresh data folder and (for PostgreSQL) a fresh empty database; nothing is opened yet. */
export async function createTestStoreTarget(engine: StoreEngine, label: string): Promise<TestStoreTarget> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `tandem-${label.replace(/[^a-z0-9]+/gi, '-')}-`));
  if (engine === 'sqlite') return { dataDir, databaseUrl: undefined };
  const { createTestDatabaseUrl } = await import('./postgresTestDatabase');
  return { dataDir, databaseUrl: await createTestDatabaseUrl(label) };
}

/** A fresh, empty, migrated store of that engine. */
export async function openTestStore(engine: StoreEngine, label: string): Promise<Store> {
  const target = await createTestStoreTarget(engine, label);
  return openStore(target);
}

/** A fresh store holding study `study` and a session of it (task t, condition c) for each of `sessionIds`. */
export async function openTestStoreWithSessions(engine: StoreEngine, label: string, sessionIds: readonly string[]): Promise<Store> {
  const store = await openTestStore(engine, label);
  await store.studies.upsertLoaded('study', 'A study', 'hash', 'live', 1);
  for (const id of sessionIds) await store.sessions.insert({ id, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 1 });
  return store;
}

/** A new session of study `studyId` (task t, condition c) in the workspace step, consented at `consentedAt`. */
export async function insertWorkspaceSession(store: Store, studyId: string, consentedAt: number): Promise<string> {
  const id = crypto.randomUUID();
  await store.sessions.insert({ id, studyId, taskId: 't', conditionId: 'c', isPilot: false, createdAt: consentedAt - 5_000 });
  await store.sessions.update(id, { step: 'workspace', consentedAt }, consentedAt);
  return id;
}
