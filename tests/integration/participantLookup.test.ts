/**
 * Finding a person by their platform id, on every store engine, over the real admin HTTP routes: the sessions
 * page's search matches a Prolific ID through the identity table (rows by pseudonym, the id never sent back),
 * and the withdrawal preview counts that person's sessions and names them by pseudonym; a mistyped id matches
 * nothing. Researcher login and the CSRF token are required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, startTestServer, type TestServer } from '../support/integrationHarness';
import { loginAdmin, TEST_ADMIN_PASSWORD } from '../support/adminTestServer';
import { STORE_ENGINES } from '../support/testStores';
import type { SessionListPage, WithdrawalPreview } from '../../common/adminSessionList';

const STUDY = 'visualization';
const PID = 'LOOKUP5f3a9c2e1b7d4';

describe.each(STORE_ENGINES)('finding a participant by platform id (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
    t = await startTestServer({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('searches sessions by platform id and previews a withdrawal with the count and the pseudonyms', async () => {
    // Two visits of the same person (two SESSION_IDs), and someone else.
    const first = await join(t, STUDY, { PROLIFIC_PID: PID, SESSION_ID: 'visit-1' });
    const second = await join(t, STUDY, { PROLIFIC_PID: PID, SESSION_ID: 'visit-2' });
    await join(t, STUDY, { PROLIFIC_PID: 'someone-else-2', SESSION_ID: 'visit-3' });
    expect(second.sessionId).not.toBe(first.sessionId);
    const admin = await loginAdmin(t.server.url);

    const found = await admin.get(`/api/admin/studies/${STUDY}/session-list?q=${PID}`);
    const text = await found.text();
    const page = (JSON.parse(text) as { data: SessionListPage }).data;
    expect(page.total).toBe(2);
    expect(page.matchedPlatformId).toBe(true);
    expect(page.rows.map((r) => r.sessionId).sort()).toEqual([first.sessionId, second.sessionId].sort());
    expect(text).not.toContain(PID);

    const typo = (await (await admin.get(`/api/admin/studies/${STUDY}/session-list?q=${PID.slice(0, -1)}X`)).json()) as { data: SessionListPage };
    expect(typo.data).toMatchObject({ total: 0, matchedPlatformId: false });

    const preview = await admin.post(`/api/admin/studies/${STUDY}/withdrawal-preview`, { participant: ` ${PID} ` });
    expect(preview.status).toBe(200);
    const previewText = await preview.text();
    const sessions = (JSON.parse(previewText) as { data: WithdrawalPreview }).data.sessions;
    expect(sessions.map((s) => s.pseudonym).sort()).toEqual(page.rows.map((r) => r.pseudonym).sort());
    expect(sessions.every((s) => s.status === 'active' && !s.isPilot)).toBe(true);
    expect(previewText).not.toContain(PID);
    expect(previewText).not.toContain(first.sessionId);
    // Nothing was deleted by looking.
    expect(await t.server.store.sessions.get(first.sessionId)).toBeDefined();

    const none = (await (await admin.post(`/api/admin/studies/${STUDY}/withdrawal-preview`, { participant: 'LOOKUP-typo' })).json()) as { data: WithdrawalPreview };
    expect(none.data.sessions).toEqual([]);
    const bad = await admin.post(`/api/admin/studies/${STUDY}/withdrawal-preview`, { participant: '   ' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/participant/);

    // Login and CSRF required.
    const anonymous = await fetch(`${t.server.url}/api/admin/studies/${STUDY}/withdrawal-preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ participant: PID }),
    });
    expect(anonymous.status).toBe(401);
    const noCsrf = await admin.post(`/api/admin/studies/${STUDY}/withdrawal-preview`, { participant: PID }, { 'x-csrf-token': 'wrong' });
    expect(noCsrf.status).toBe(403);
  });
});
