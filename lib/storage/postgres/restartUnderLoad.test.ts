/**
 * The whole server on PostgreSQL while PostgreSQL restarts: participants keep sending chat messages over real
 * sockets; during the outage their sends fail with an error envelope (the server stays up, no unhandled
 * rejection), a resend with the same clientId succeeds once PostgreSQL is back (the pool reconnects by itself),
 * every acknowledged message is stored exactly once with its event, and no reply ends as an error (its reads
 * wait for the store, server/services/storeRetry.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresCluster, type PostgresCluster, type ShutdownMode } from '../../../tests/support/postgresCluster';
import { call, joinToWorkspace, startTestServer, type ParticipantClient, type TestServer } from '../../../tests/support/integrationHarness';

const PARTICIPANTS = 5;
const MESSAGES_EACH = 12;
const RETRIED = new Set(['unavailable', 'busy', 'rate_limited']);

describe.each<ShutdownMode>(['fast', 'immediate'])('the server while PostgreSQL restarts (%s)', (mode) => {
  let cluster: PostgresCluster;
  let t: TestServer;
  beforeAll(async () => {
    cluster = await startPostgresCluster({ maxConnections: 60 });
    t = await startTestServer({ databaseUrl: cluster.url });
  });
  afterAll(async () => {
    await t?.close();
    await cluster?.stop();
  });

  it('answers retryably during the outage, recovers on its own, and loses no acknowledged message', async () => {
    expect(t.server.store.engine).toBe('postgres');
    const people: Array<{ sessionId: string; socket: ParticipantClient }> = [];
    for (let i = 0; i < PARTICIPANTS; i++) people.push(await joinToWorkspace(t, 'travel-planning', { participant_label: `restart-${mode}-${i}` }));

    const acked = new Map<string, string>(); // clientId → sessionId
    const errorCodes = new Map<string, number>();
    let sentTotal = 0;
    let restarted = false;

    /** Sends one message, resending the same clientId after each error until it is acknowledged. */
    const sendUntilAcked = async (p: (typeof people)[number], clientId: string, text: string) => {
      for (let attempt = 0; attempt < 400; attempt++) {
        const reply = await call(p.socket, 'chat:send', { clientId, text, clientTs: Date.now() });
        if (reply.ok) return acked.set(clientId, p.sessionId);
        errorCodes.set(reply.error.code, (errorCodes.get(reply.error.code) ?? 0) + 1);
        // What a participant's browser retries: the store away (unavailable), the previous reply still
        // being stored (busy), its own pace (rate_limited). Anything else is a real failure.
        if (!RETRIED.has(reply.error.code)) throw new Error(`${clientId}: ${reply.error.code}: ${reply.error.message}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`${clientId} was never acknowledged (errors: ${JSON.stringify([...errorCodes])})`);
    };
    const participant = async (p: (typeof people)[number], i: number) => {
      for (let n = 0; n < MESSAGES_EACH; n++) {
        await sendUntilAcked(p, `client-p${i}-m${n}`, `message ${n} of participant ${i}`);
        sentTotal++;
      }
    };
    const load = Promise.all(people.map(participant));
    while (sentTotal < (PARTICIPANTS * MESSAGES_EACH) / 3) await new Promise((r) => setTimeout(r, 10));
    await cluster.halt(mode);
    await new Promise((r) => setTimeout(r, 500));
    await cluster.start();
    restarted = true;
    await load;

    expect(restarted).toBe(true);
    expect(acked.size).toBe(PARTICIPANTS * MESSAGES_EACH);
    // The outage was seen by participants as error envelopes (not by a dead server or dropped sockets).
    expect(errorCodes.get('unavailable') ?? 0).toBeGreaterThan(0);
    expect(people.every((p) => p.socket.connected)).toBe(true);

    for (const p of people) {
      await t.server.participants.chat.settled(p.sessionId);
      const users = (await t.server.store.messages.listForSession(p.sessionId)).filter((m) => m.role === 'user');
      const mine = [...acked].filter(([, s]) => s === p.sessionId).map(([c]) => c);
      // Each acknowledged clientId exactly once, nothing else.
      expect(users.map((m) => m.clientId).sort()).toEqual(mine.sort());
      // Every message got its reply stored, also those whose reply finished while PostgreSQL was down.
      const replies = (await t.server.store.messages.listForSession(p.sessionId)).filter((m) => m.role === 'assistant');
      expect(replies.map((m) => m.replyTo).sort()).toEqual(users.map((m) => m.id).sort());
      // None of them is an error: a reply whose conversation read met the outage waited for the store.
      expect(replies.filter((m) => m.status === 'error').map((m) => m.error)).toEqual([]);
      const events = await t.server.store.events.listForSession(p.sessionId);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'message.user')).toHaveLength(MESSAGES_EACH);
    }
  });
});
