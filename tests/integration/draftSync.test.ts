/**
 * Live draft sync over real socket.io clients (issue 26, item 7): a draft saved from one tab of a session is
 * pushed to that session's other sockets as `artifact:draft` (never back to the saving socket), and a socket of
 * another session hears nothing of it, also when it forges the other session's id in its payload or token.
 * SQLite only: the push happens after the store's ack and is the same on both engines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ArtifactDraftPush } from '../../common/events';
import { call, callOk, connectSocket, join, joinToWorkspace, nextPush, startTestServer, type ParticipantClient, type TestServer } from '../support/integrationHarness';

/** Every `artifact:draft` push a socket receives, in order. */
function recordDrafts(socket: ParticipantClient): ArtifactDraftPush[] {
  const seen: ArtifactDraftPush[] = [];
  socket.on('artifact:draft', (draft) => seen.push(draft));
  return seen;
}

describe('live draft sync between the tabs of one session', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("pushes a saved draft to the session's other tabs only; another session's socket receives nothing, forged ids included", async () => {
    t = await startTestServer();
    const a = await joinToWorkspace(t, 'visualization', { PROLIFIC_PID: 'sync-a', SESSION_ID: 'visit-a' });
    const aSecondTab = await connectSocket(t, a.token);
    const b = await joinToWorkspace(t, 'visualization', { PROLIFIC_PID: 'sync-b', SESSION_ID: 'visit-b' });
    const seenByA1 = recordDrafts(a.socket);
    const seenByA2 = recordDrafts(aSecondTab);
    const seenByB = recordDrafts(b.socket);

    // Tab 1 of A saves: tab 2 of A gets exactly what was stored, with the ack's version and time.
    const pushed = nextPush(aSecondTab, 'artifact:draft');
    const ack = await callOk(a.socket, 'artifact:draft', { fields: { hypothesis: 'typed in tab one' }, baseVersion: 0, clientTs: Date.now() });
    expect(await pushed).toEqual({ fields: { hypothesis: 'typed in tab one' }, version: ack.version, savedAt: ack.savedAt });
    expect(ack.version).toBe(1);

    // B forges A's session id in the payload: refused as invalid input (strict payload), nothing stored, nothing pushed.
    const forged = await call(b.socket, 'artifact:draft', { fields: { hypothesis: 'forged' }, sessionId: a.sessionId, clientTs: Date.now() });
    expect(forged.ok).toBe(false);
    if (!forged.ok) expect(forged.error.code).toBe('invalid_input');
    // A socket with a made-up token never connects, so it cannot join any session's room.
    await expect(connectSocket(t, `forged-${a.sessionId}`)).rejects.toThrow('unauthorized');
    // B saves its own draft: stored in B only, and no socket of A hears it.
    await callOk(b.socket, 'artifact:draft', { fields: { hypothesis: 'B writes here' }, clientTs: Date.now() });
    expect((await t.server.store.artifacts.getDraft(a.sessionId))?.fields).toEqual({ hypothesis: 'typed in tab one' });
    expect((await t.server.store.artifacts.getDraft(b.sessionId))?.fields).toEqual({ hypothesis: 'B writes here' });

    // Tab 2 of A saves on top (a later push to tab 1, so anything from B's save would have reached A by now).
    const back = nextPush(a.socket, 'artifact:draft');
    await callOk(aSecondTab, 'artifact:draft', { fields: { hypothesis: 'typed in tab one, then two' }, baseVersion: 1, clientTs: Date.now() });
    expect((await back).version).toBe(2);
    // And one more from tab 1, so tab 2's list is complete too.
    const last = nextPush(aSecondTab, 'artifact:draft', (d) => d.version === 3);
    await callOk(a.socket, 'artifact:draft', { fields: { hypothesis: 'three' }, baseVersion: 2, clientTs: Date.now() });
    await last;

    expect(seenByA1.map((d) => [d.version, d.fields.hypothesis])).toEqual([[2, 'typed in tab one, then two']]);
    expect(seenByA2.map((d) => [d.version, d.fields.hypothesis])).toEqual([[1, 'typed in tab one'], [3, 'three']]);
    expect(seenByB).toEqual([]);

    // A new session joined later (another participant) gets nothing of A's drafts either.
    const c = await join(t, 'visualization', { PROLIFIC_PID: 'sync-c', SESSION_ID: 'visit-c' });
    const cSocket = await connectSocket(t, c.token);
    const seenByC = recordDrafts(cSocket);
    const afterC = nextPush(aSecondTab, 'artifact:draft', (d) => d.version === 4);
    await callOk(a.socket, 'artifact:draft', { fields: { hypothesis: 'four' }, baseVersion: 3, clientTs: Date.now() });
    await afterC;
    await callOk(cSocket, 'session:state', {});
    expect(seenByC).toEqual([]);
  });
});
