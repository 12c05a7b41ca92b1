/**
 * Withdrawal seen from the participant side, on every store engine: once a person has withdrawn, their
 * platform id cannot start the study again, and the judge's reply cache no longer holds prompts built
 * from their sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, postJson, startTestServer, type TestServer } from '../support/integrationHarness';
import { withdrawParticipant } from '../../server/admin/withdrawal';
import { STORE_ENGINES } from '../support/testStores';

describe.each(STORE_ENGINES)('after a withdrawal (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a new session for the same platform id and purges cached judge replies built from their data', async () => {
    const withdrawn = await join(t, 'visualization', { PROLIFIC_PID: 'withdrawing-person-1' });
    const other = await join(t, 'visualization', { PROLIFIC_PID: 'staying-person-2', SESSION_ID: 'staying-visit' });

    // Two cached judge replies, one made from each person's session.
    const cache = await t.server.store.openReplyCache();
    for (const [key, sessionId] of [['k-withdrawn', withdrawn.sessionId], ['k-other', other.sessionId]] as const) {
      await cache.put({ key, purpose: 'judge', requestJson: '{}', resultJson: '{}', createdAt: 1 });
      await cache.linkSession(key, sessionId);
    }
    await cache.close();

    const result = await withdrawParticipant(t.server.store, {
      dataDir: t.dataDir,
      studyId: 'visualization',
      platformUserId: 'withdrawing-person-1',
      actor: 'test',
    });
    expect(result).toMatchObject({ deletedSessions: 1, purgedCachedReplies: 1 });

    const after = await t.server.store.openReplyCache();
    expect(await after.get('k-withdrawn')).toBeUndefined();
    expect(await after.get('k-other')).toBeDefined();
    await after.close();

    const again = await postJson(`${t.server.url}/api/join`, { studyId: 'visualization', params: { PROLIFIC_PID: 'withdrawing-person-1' } });
    expect(again.body).toMatchObject({ ok: false, error: { code: 'study_unavailable' } });
    expect(again.body.error.message).toMatch(/withdrawn/);
    expect(await t.server.store.sessions.get(withdrawn.sessionId)).toBeUndefined();
    expect(await t.server.store.withdrawals.count('visualization')).toBe(1);
    expect((await t.server.store.audit.list({ studyId: 'visualization' })).map((e) => e.action)).toContain('withdrawal');

    // Everyone else still joins (and resumes) as before.
    const resumed = await join(t, 'visualization', { PROLIFIC_PID: 'staying-person-2', SESSION_ID: 'staying-visit' });
    expect(resumed).toMatchObject({ sessionId: other.sessionId, resumed: true });
  });
});
