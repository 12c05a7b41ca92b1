/**
 * Hostile socket and JSON payloads: prototype-pollution keys, wrong shapes, and floods. Each must get
 * an error envelope, write nothing, and leave Object.prototype untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientEvents, type ClientEventName } from '../../common/events';
import { call, connectSocket, join, postJson, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { MAX_CONNECTIONS_PER_MINUTE, MAX_SOCKETS_PER_SESSION } from '../../server/socket/sessionBudget';
import { tryConnect } from './support';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const eventCount = async (sessionId: string) => (await t.server.store.events.listForSession(sessionId)).length;
const polluted = () => ({}) as Record<string, unknown>;

describe('prototype-pollution keys', () => {
  it('in artifact fields and survey answers: refused, nothing stored, Object.prototype untouched', async () => {
    const j = await join(t, 'visualization', { participant_label: 'proto-1' });
    const s = await connectSocket(t, j.token);
    await toWorkspace(s);
    const before = (await eventCount(j.sessionId));
    const payloads = [
      JSON.parse('{"fields":{"__proto__":{"isAdmin":true},"hypothesis":"h"},"clientTs":1}'),
      JSON.parse('{"fields":{"constructor":{"prototype":{"isAdmin":true}}},"clientTs":1}'),
      JSON.parse('{"fields":{"constructor":"x"},"clientTs":1}'),
      JSON.parse('{"fields":{"hasOwnProperty":"x"},"clientTs":1}'),
      JSON.parse('{"__proto__":{"isAdmin":true},"fields":{},"clientTs":1}'),
    ];
    for (const p of payloads) {
      for (const event of ['artifact:draft', 'artifact:submit'] as const) {
        const reply = await call(s, event, p);
        // Either refused, or (for the dropped __proto__ key) stored without it: never a polluted object.
        if (reply.ok) expect(JSON.stringify((await t.server.store.artifacts.getDraft(j.sessionId)) ?? {})).not.toContain('isAdmin');
        else expect(reply.error.code).toBe('invalid_input');
      }
    }
    expect(polluted().isAdmin).toBeUndefined();
    const stored = JSON.stringify((await t.server.store.events.listForSession(j.sessionId)).slice(before));
    expect(stored).not.toContain('isAdmin');
    expect(stored).not.toContain('constructor');
  });

  it('in the study link parameters of POST /api/join: stored as plain data only', async () => {
    const body = '{"studyId":"travel-planning","params":{"__proto__":{"participant_label":"victim-label","isAdmin":"yes"},"constructor":"x","participant_label":"proto-join"}}';
    const res = await fetch(`${t.server.url}/api/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reply = (await res.json()) as any;
    expect(polluted().isAdmin).toBeUndefined();
    expect(polluted().participant_label).toBeUndefined();
    if (reply.ok) {
      const identity = (await t.server.store.identities.get(reply.data.sessionId))!;
      expect(identity.platformUserId).toBe('proto-join');
      expect(Object.getPrototypeOf(identity.urlParams)).toBe(Object.prototype);
      expect(JSON.stringify(identity.urlParams)).not.toContain('isAdmin');
    } else expect(reply.error.code).toBe('invalid_input');
    // A payload that only carries __proto__ must not resume anyone's session.
    const only = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: JSON.parse('{"__proto__":{"participant_label":"proto-join"}}') });
    if (only.body.ok) expect(only.body.data.resumed).toBe(false);
  });
});

describe('wrong shapes on every client event', () => {
  it('arrays, scalars, null, nested junk and extra keys are refused with invalid_input and write nothing', async () => {
    const j = await join(t, 'visualization', { participant_label: 'shapes-1' });
    const s = await connectSocket(t, j.token);
    await toWorkspace(s);
    const before = (await eventCount(j.sessionId));
    const junk: unknown[] = [[], 'x', 42, true, null, { clientTs: -1 }, { clientTs: 'now' }, { extra: 1, clientTs: 1 }, { clientTs: 1e300 }];
    for (const name of Object.keys(clientEvents) as ClientEventName[]) {
      for (const payload of junk) {
        if (name === 'session:state' && payload === null) continue; // no payload = {} for this one
        const reply = await call(s, name, payload);
        expect(reply.ok, `${name} ${JSON.stringify(payload)}`).toBe(false);
        if (!reply.ok) expect(['invalid_input', 'rate_limited']).toContain(reply.error.code);
      }
    }
    expect((await eventCount(j.sessionId))).toBe(before);
  });
});

describe('per-socket flood guard', () => {
  it('a burst of events is cut off with rate_limited, and refused events write nothing', async () => {
    const j = await join(t, 'travel-planning', { participant_label: 'flood-1' });
    const s = await connectSocket(t, j.token);
    const before = (await eventCount(j.sessionId));
    const replies = await Promise.all(Array.from({ length: 200 }, () => call(s, 'telemetry', { kind: 'focus', clientTs: 1 })));
    const ok = replies.filter((r) => r.ok).length;
    const limited = replies.filter((r) => !r.ok && r.error.code === 'rate_limited').length;
    expect(limited).toBeGreaterThan(0);
    expect(ok + limited).toBe(200);
    expect((await eventCount(j.sessionId)) - before).toBe(ok);
  });
});

describe('sockets per session', () => {
  it('a session holds a bounded number of sockets (each has its own flood guard), and connect/disconnect loops are cut off', async () => {
    const j = await join(t, 'travel-planning', { participant_label: 'socket-hoarder' });
    const open = [];
    for (let i = 0; i < MAX_SOCKETS_PER_SESSION; i++) open.push(await tryConnect(t.server.url, { auth: { token: j.token } }));
    expect(open.every((o) => o.outcome === 'connected')).toBe(true);
    const extra = await tryConnect(t.server.url, { auth: { token: j.token } });
    extra.socket.close();
    expect(extra.outcome).toMatch(/too many connections/);
    for (const o of open) o.socket.close();

    // Each connection writes trajectory events; a reconnect loop is refused once the per-minute budget is spent.
    const k = await join(t, 'travel-planning', { participant_label: 'reconnect-looper' });
    const outcomes: string[] = [];
    for (let i = 0; i < MAX_CONNECTIONS_PER_MINUTE + 10; i++) {
      const r = await tryConnect(t.server.url, { auth: { token: k.token } });
      outcomes.push(r.outcome);
      r.socket.close();
      if (r.outcome !== 'connected') break;
      // Wait until the server has seen the close, so only the connection budget (not the socket cap) can refuse.
      while ((t.server.io.of('/').adapter.rooms.get(`session:${k.sessionId}`)?.size ?? 0) > 0) await new Promise((r) => setTimeout(r, 2));
    }
    expect(outcomes.filter((o) => o === 'connected')).toHaveLength(MAX_CONNECTIONS_PER_MINUTE);
    expect(outcomes.at(-1)).toBe('rate_limited');
    const opened = (await t.server.store.events.listForSession(k.sessionId)).filter((e) => e.type === 'connection.opened').length;
    expect(opened).toBe(MAX_CONNECTIONS_PER_MINUTE);
  });
});
