/**
 * Faults of the PostgreSQL store on a real server: an unreachable DATABASE_URL is one clear line, and a
 * PostgreSQL restart under load gives callers retryable errors (never a crash), after which the pool
 * reconnects by itself and nothing that was acknowledged (committed) is lost.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresCluster, type PostgresCluster, type ShutdownMode } from '../../../tests/support/postgresCluster';
import { createTestDatabaseUrl } from '../../../tests/support/postgresTestDatabase';
import type { Store } from '../contract/store';
import { DatabaseConnectError, describeStartupError, openPostgresStore, StoreUnavailableError } from '.';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

describe('opening an unreachable or wrong DATABASE_URL', () => {
  it('rejects with one line naming host, port and the driver’s reason (never a password or a stack)', async () => {
    const port = await closedPort();
    const err = await openPostgresStore(`postgres://tandem:secret@127.0.0.1:${port}/study`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseConnectError);
    const line = describeStartupError(err)!;
    expect(line).toBe(`cannot reach PostgreSQL at 127.0.0.1:${port} (database study): connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(line).not.toContain('secret');
    expect(describeStartupError(new Error('a bug'))).toBeUndefined();
  });

  it('names a database that does not exist on a reachable server', async () => {
    const url = new URL(await createTestDatabaseUrl('faults missing'));
    url.pathname = '/no_such_database';
    const err = await openPostgresStore(url.toString()).catch((e: unknown) => e);
    expect(describeStartupError(err)).toBe(
      `cannot open PostgreSQL at 127.0.0.1:${url.port} (database no_such_database): database "no_such_database" does not exist (3D000)`,
    );
  });
});

describe.each<ShutdownMode>(['fast', 'immediate'])('a PostgreSQL restart (%s shutdown) under load', (mode) => {
  let cluster: PostgresCluster;
  let store: Store;
  beforeAll(async () => {
    cluster = await startPostgresCluster({ maxConnections: 40 });
    store = await openPostgresStore(cluster.url, { poolSize: 4 });
    await store.studies.upsertLoaded('study', 'Study', 'h', 'live', 1);
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it('fails calls retryably while it is down, reconnects by itself, and keeps every acknowledged write', async () => {
    const sessionId = crypto.randomUUID();
    await store.sessions.insert({ id: sessionId, studyId: 'study', taskId: 't', conditionId: 'c', isPilot: false, createdAt: 1 });

    const acknowledged: string[] = [];
    const failures: unknown[] = [];
    let stop = false;
    // Four writers, each a transaction of an event plus a message, acknowledged only when the commit resolved.
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const clientId = `w${w}-${i}`;
        try {
          await store.transaction(async (tx) => {
            const seq = await tx.events.append(sessionId, 'message.user', { clientId }, Date.now(), null);
            await tx.messages.insertIfNewClientId({
              id: crypto.randomUUID(), sessionId, eventSeq: seq, role: 'user', text: clientId, clientId, replyTo: null,
              status: 'complete', tokens: 1, provider: null, providerUrl: null, model: null, requestedModel: null,
              params: null, usage: null, ttftMs: null, durationMs: null, finishReason: null, interrupted: false,
              attempts: null, error: null, createdAt: Date.now(),
            });
          });
          acknowledged.push(clientId);
        } catch (err) {
          failures.push(err);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await until(() => acknowledged.length >= 40);
    const beforeRestart = acknowledged.length;

    await cluster.halt(mode);
    await new Promise((r) => setTimeout(r, 400)); // down for a while: writers keep trying
    const failuresWhileDown = failures.length;
    await cluster.start();

    // The same store object works again without being reopened.
    await until(() => acknowledged.length >= beforeRestart + 40);
    stop = true;
    await Promise.all(writers);

    expect(failuresWhileDown).toBeGreaterThan(0);
    for (const err of failures) {
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).retryable).toBe(true);
    }
    // Every acknowledged message and its event are stored; seq stays gap-free; nothing was stored twice.
    const messages = await store.messages.listForSession(sessionId);
    const stored = new Set(messages.map((m) => m.clientId));
    for (const clientId of acknowledged) expect(stored.has(clientId), clientId).toBe(true);
    const events = await store.events.listForSession(sessionId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events).toHaveLength(messages.length);
    expect(new Set(events.map((e) => (e.payload as { clientId: string }).clientId))).toEqual(stored);
  });
});

async function until(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
