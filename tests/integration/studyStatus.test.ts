/**
 * What a study link reveals and allows per study status, over real HTTP against a real server:
 * draft is invisible (404 like an unknown id) and cannot be joined; pilot and live accept participants;
 * closed is shown as not accepting participants. Switching a running study to draft or closed keeps the
 * participants already in a session: their reload (token) and their own link still open it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOk, connectSocket, join, postJson, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { STORE_ENGINES } from '../support/testStores';

describe.each(STORE_ENGINES)('study status on the store (%s)', (engine) => {
  let t: TestServer;
  const STUDY = 'travel-planning';

  beforeAll(async () => {
    t = await startTestServer({ engine, initialStudyStatus: 'draft' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const setStatus = (status: 'draft' | 'pilot' | 'live' | 'closed') => t.server.store.studies.setStatus(STUDY, status, Date.now());
  const publicInfo = async () => {
    const res = await fetch(`${t.server.url}/api/studies/${STUDY}/public`);
    return { status: res.status, body: (await res.json()) as any };
  };
  const joinRaw = (params: Record<string, string>) => postJson(`${t.server.url}/api/join`, { studyId: STUDY, params });

  describe('study status on the participant side', () => {
    it('a draft study answers 404 not_found on its public page, exactly like an unknown study, and reveals nothing', async () => {
      await setStatus('draft');
      const info = await publicInfo();
      expect(info.status).toBe(404);
      expect(info.body).toMatchObject({ ok: false, error: { code: 'not_found' } });
      const text = JSON.stringify(info.body);
      expect(text).not.toContain('Planning a trip');
      expect(text).not.toContain('city-weekend');

      const unknown = await fetch(`${t.server.url}/api/studies/no-such-study/public`);
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as any).error.message).toBe(info.body.error.message.replace(STUDY, 'no-such-study'));
    });

    it('a draft study refuses joins (and MTurk previews) and creates no session', async () => {
      await setStatus('draft');
      const before = (await t.server.store.sessions.countByCondition(STUDY));
      const res = await joinRaw({ PROLIFIC_PID: 'draft-1' });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ ok: false, error: { code: 'not_found' } });
      const preview = await joinRaw({ workerId: 'W1', assignmentId: 'ASSIGNMENT_ID_NOT_AVAILABLE', hitId: 'H1' });
      expect(preview.status).toBe(404);
      expect((await t.server.store.sessions.countByCondition(STUDY))).toEqual(before);
    });

    it('pilot works (sessions flagged as pilot); switching back to draft keeps the sessions in progress and refuses new ones', async () => {
      await setStatus('pilot');
      const info = await publicInfo();
      expect(info.body).toMatchObject({ ok: true, data: { status: 'pilot', open: true, title: 'Planning a trip with an AI assistant' } });
      const link = { PROLIFIC_PID: 'pilot-1', STUDY_ID: 'st', SESSION_ID: 'pilot-1-visit' };
      const joined = await join(t, STUDY, link);
      expect((await t.server.store.sessions.get(joined.sessionId))?.isPilot).toBe(true);
      const socket = await connectSocket(t, joined.token);
      await toWorkspace(socket);

      await setStatus('draft');
      // Mid-task: the open socket keeps working, a reload (a fresh socket with the stored token) opens the
      // session, and so does reopening the participant's own link in another browser.
      expect((await callOk(socket, 'session:state', {})).step).toBe('workspace');
      const reload = await connectSocket(t, joined.token);
      expect((await callOk(reload, 'session:state', {})).step).toBe('workspace');
      const resume = await joinRaw(link);
      expect(resume.status).toBe(200);
      expect(resume.body).toMatchObject({ ok: true, data: { sessionId: joined.sessionId, resumed: true } });
      // Nobody new gets in, and the study stays invisible.
      const fresh = await joinRaw({ PROLIFIC_PID: 'pilot-2', STUDY_ID: 'st', SESSION_ID: 'pilot-2-visit' });
      expect(fresh.status).toBe(404);
      expect(fresh.body).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect((await publicInfo()).status).toBe(404);
      // The dashboard's confirmation counts this session as in progress.
      expect(await t.server.store.sessions.countActive(STUDY)).toBeGreaterThanOrEqual(1);
    });

    it('live accepts joins and resumes; closed shows the study as not accepting participants', async () => {
      await setStatus('live');
      const info = await publicInfo();
      expect(info.body).toMatchObject({ ok: true, data: { status: 'live', open: true } });
      const first = await join(t, STUDY, { PROLIFIC_PID: 'live-1', SESSION_ID: 'live-1-visit' });
      expect(first.resumed).toBe(false);
      expect((await join(t, STUDY, { PROLIFIC_PID: 'live-1', SESSION_ID: 'live-1-visit' })).sessionId).toBe(first.sessionId);

      await setStatus('closed');
      const closed = await publicInfo();
      expect(closed.body).toMatchObject({ ok: true, data: { status: 'closed', open: false } });
      const refused = await joinRaw({ PROLIFIC_PID: 'closed-1' });
      expect(refused.body).toMatchObject({ ok: false, error: { code: 'study_unavailable', message: expect.stringMatching(/not accepting participants/) } });
    });
  });
});
