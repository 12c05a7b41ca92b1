/**
 * SessionSocket against the real server (real socket.io, real SQLite in a temp dir): a refused
 * handshake (too many sockets for the session, rate limit) no longer leaves the page stuck on
 * "reconnecting" — it reports `refused` with a message and retries with backoff until it gets in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSocket, join, startTestServer, type ParticipantClient, type TestServer } from '../support/integrationHarness';
import { MAX_CONNECTIONS_PER_MINUTE, MAX_SOCKETS_PER_SESSION } from '../../server/socket/sessionBudget';
import { SessionSocket, type ConnectionState } from '../../client/socket/sessionSocket';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** A SessionSocket with short, recorded retry delays and a log of every state it reports. */
function watched(token: string) {
  const attempts: number[] = [];
  const states: ConnectionState[] = [];
  const socket = new SessionSocket({
    token,
    url: t.server.url,
    retryDelayMs: (attempt) => {
      attempts.push(attempt);
      return 50 * 2 ** Math.min(attempt, 3);
    },
  });
  socket.onConnection((state) => states.push(state));
  const until = (check: () => boolean, what: string, ms = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const timer = setInterval(() => {
        if (check()) {
          clearInterval(timer);
          resolve();
        } else if (Date.now() - started > ms) {
          clearInterval(timer);
          reject(new Error(`timed out waiting for ${what}; states: ${states.join(', ')}`));
        }
      }, 10);
    });
  return { socket, attempts, states, until };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SessionSocket when the server refuses the connection', () => {
  it('too many sockets for the session: shows why, backs off, and connects once a socket frees up', async () => {
    const j = await join(t, 'travel-planning', { participant_label: 'refused-tabs' });
    const others: ParticipantClient[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_SESSION; i++) others.push(await connectSocket(t, j.token));

    const w = watched(j.token);
    await w.until(() => w.states.filter((s) => s === 'refused').length >= 3, 'three refused attempts');
    expect(w.socket.connectionState).toBe('refused');
    expect(w.socket.notice).toMatch(/too many tabs/);
    expect(w.socket.connected).toBe(false);
    expect(w.attempts.slice(0, 3)).toEqual([0, 1, 2]); // each retry waits longer

    others.pop()!.disconnect(); // a tab closes
    await w.until(() => w.socket.connected, 'the connection');
    expect(w.socket.connectionState).toBe('connected');
    expect(w.socket.notice).toBeNull();
    // the session works over the new socket
    expect((await w.socket.emit('session:state', { clientTs: Date.now() })).sessionId).toBe(j.sessionId);

    // after a success the backoff starts over: a server-side disconnect is retried at attempt 0 again
    const before = w.attempts.length;
    for (const s of await t.server.io.fetchSockets()) if (!others.some((o) => o.id === s.id)) s.disconnect(true);
    await w.until(() => w.attempts.length > before && w.socket.connected, 'the reconnect after a server disconnect');
    expect(w.attempts[before]).toBe(0);
    w.socket.close();
    for (const s of others) s.disconnect();
  });

  it('rate limited: keeps retrying with the rate-limit message instead of giving up', async () => {
    const j = await join(t, 'travel-planning', { participant_label: 'refused-rate' });
    // Use up the session's connections for this minute (one socket at a time, well under the tab limit).
    for (let i = 0; i < MAX_CONNECTIONS_PER_MINUTE; i++) (await connectSocket(t, j.token)).disconnect();

    const w = watched(j.token);
    await w.until(() => w.states.filter((s) => s === 'refused').length >= 3, 'three refused attempts');
    expect(w.socket.notice).toMatch(/Too many reconnects/);
    expect(w.socket.connected).toBe(false);
    const tries = w.attempts.length;
    await sleep(900);
    expect(w.attempts.length).toBeGreaterThan(tries); // still trying
    w.socket.close();
    // close() cancels the pending retry
    const afterClose = w.attempts.length;
    await sleep(900);
    expect(w.attempts.length).toBe(afterClose);
  });

  it('an unknown token is final: unauthorized, and no retry', async () => {
    const w = watched('x'.repeat(43));
    await w.until(() => w.socket.connectionState === 'unauthorized', 'unauthorized');
    await sleep(400);
    expect(w.attempts).toEqual([]);
    expect(w.states.filter((s) => s === 'refused')).toEqual([]);
    w.socket.close();
  });
});
