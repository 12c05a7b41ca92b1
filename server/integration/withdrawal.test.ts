/**
 * Withdrawal seen from the participant side: once a person has withdrawn, their platform id cannot start
 * the study again, and the judge's reply cache no longer holds prompts built from their sessions.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, postJson, startTestServer, type TestServer } from './harness';
import { withdrawParticipant } from '../admin/withdrawal';
import { ModelReplyCache } from '../db/repositories/judgements';
import { JUDGE_CACHE_FILE } from '../judge/judgeDataset';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('after a withdrawal', () => {
  it('refuses a new session for the same platform id and purges cached judge replies built from their data', async () => {
    const withdrawn = await join(t, 'visualization', { PROLIFIC_PID: 'withdrawing-person-1' });
    const other = await join(t, 'visualization', { PROLIFIC_PID: 'staying-person-2' });

    // Two cached judge replies, one made from each person's session.
    const cacheFile = path.join(t.dataDir, JUDGE_CACHE_FILE);
    const cache = ModelReplyCache.open(cacheFile);
    for (const [key, sessionId] of [['k-withdrawn', withdrawn.sessionId], ['k-other', other.sessionId]] as const) {
      cache.put({ key, purpose: 'judge', requestJson: '{}', resultJson: '{}', createdAt: 1 });
      cache.linkSession(key, sessionId);
    }
    cache.close();

    const result = withdrawParticipant(t.server.store, {
      dataDir: t.dataDir,
      studyId: 'visualization',
      platformUserId: 'withdrawing-person-1',
      actor: 'test',
    });
    expect(result).toMatchObject({ deletedSessions: 1, purgedCachedReplies: 1 });

    expect(existsSync(cacheFile)).toBe(true);
    const after = ModelReplyCache.open(cacheFile);
    expect(after.get('k-withdrawn')).toBeUndefined();
    expect(after.get('k-other')).toBeDefined();
    after.close();

    const again = await postJson(`${t.server.url}/api/join`, { studyId: 'visualization', params: { PROLIFIC_PID: 'withdrawing-person-1' } });
    expect(again.body).toMatchObject({ ok: false, error: { code: 'study_unavailable' } });
    expect(again.body.error.message).toMatch(/withdrawn/);
    expect(t.server.store.sessions.get(withdrawn.sessionId)).toBeUndefined();

    // Everyone else still joins (and resumes) as before.
    const resumed = await join(t, 'visualization', { PROLIFIC_PID: 'staying-person-2' });
    expect(resumed).toMatchObject({ sessionId: other.sessionId, resumed: true });
  });
});
