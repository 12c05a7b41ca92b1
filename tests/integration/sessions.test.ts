/**
 * Participant sessions end to end over real HTTP and socket.io against a real SQLite file:
 * the whole flow, decline, resume by platform id, reconnect, token isolation, invalid input, uploads.
 * The assistant is the offline demo provider here (chat with a real OpenAI-compatible server: chat.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect } from 'socket.io-client';
import { call, callOk, connectSocket, join, nextPush, postJson, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { tinyPng } from '../support/png';
import { artifactValues, surveyAnswers } from '../../research/simulation/participantInputs';
import { STORE_ENGINES } from '../support/testStores';

describe.each(STORE_ENGINES)('participant sessions on the store (%s)', (engine) => {
  let t: TestServer;
  let n = 0;
  const pid = () => `pid-${++n}-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    t = await startTestServer({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function upload(token: string, field: string, body: Buffer, contentType = 'image/png') {
    const res = await fetch(`${t.server.url}/api/session/upload?field=${field}&name=plot.png`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: new Uint8Array(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  async function eventTypes(sessionId: string): Promise<string[]> {
    return (await t.server.store.events.listForSession(sessionId)).map((e) => e.type);
  }

  describe('participant session', () => {
    it('runs consent → instructions → workspace → submit → survey → completion, logging every step once, in order', async () => {
      const j = await join(t, 'visualization', { PROLIFIC_PID: pid(), STUDY_ID: 'st-1', SESSION_ID: 'se-1' });
      expect(j.resumed).toBe(false);
      const socket = await connectSocket(t, j.token);
      let state = await callOk(socket, 'session:state', {});
      expect(state).toMatchObject({ step: 'consent', status: 'active', studyId: 'visualization', deadline: null, completion: null });
      expect(['baseline', 'clarify-first']).not.toContain(state.assistant.label);
      // No OPENAI_API_KEY in this server's env: the offline demo assistant answers and says so.
      expect(state.assistant).toEqual({ label: 'AI assistant (offline demo)', offline: true });
      expect(JSON.stringify(state)).not.toMatch(/clarify-first|"baseline"/);
      expect(state.task.materials[0]).toMatchObject({ name: 'study_habits.csv', url: '/api/session/materials/study_habits.csv' });

      state = await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
      expect(state.step).toBe('instructions');
      expect(state.deadline! - state.serverNow).toBeGreaterThan(29 * 60_000);
      state = await callOk(socket, 'step:advance', { from: 'instructions', clientTs: Date.now() });
      expect(state.step).toBe('workspace');
      // A repeated advance (double click) changes nothing.
      expect((await callOk(socket, 'step:advance', { from: 'instructions', clientTs: Date.now() })).step).toBe('workspace');

      const material = await fetch(`${t.server.url}/api/session/materials/study_habits.csv`, { headers: { authorization: `Bearer ${j.token}` } });
      expect(material.status).toBe(200);
      expect((await material.text()).split('\n')[0]).toBe('student,section,study_hours,sleep_hours,coffees_per_day,exam_score');

      const done = nextPush(socket, 'chat:done');
      await callOk(socket, 'chat:send', { clientId: 'flow-msg-1', text: 'Which plot should I make?', clientTs: Date.now() });
      expect((await done).message.text.length).toBeGreaterThan(0);
      expect((await t.server.store.messages.listForSession(j.sessionId))[1]).toMatchObject({ provider: 'offline', model: 'tandem-offline-demo-1', status: 'complete' });

      await callOk(socket, 'telemetry', { kind: 'paste', chars: 120, target: 'code', clientTs: Date.now() });
      await callOk(socket, 'telemetry', { kind: 'blur', clientTs: Date.now() });
      const up = await upload(j.token, 'plot', tinyPng());
      expect(up.status).toBe(201);
      const fields = { hypothesis: 'More study hours, higher scores.', code: 'df.plot.scatter("study_hours", "exam_score")', plot: up.body.data.uploadId, interpretation: 'Clear positive trend.' };
      await callOk(socket, 'artifact:draft', { fields: { hypothesis: fields.hypothesis }, clientTs: Date.now() });
      const missing = await call(socket, 'artifact:submit', { fields: { hypothesis: fields.hypothesis }, clientTs: Date.now() });
      expect(missing).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'fields.code' } });
      state = await callOk(socket, 'artifact:submit', { fields, clientTs: Date.now() });
      expect(state.step).toBe('survey');
      expect(state.artifactVersions).toEqual([{ version: 1, fields, submittedAt: expect.any(Number) }]);

      const bad = await call(socket, 'survey:submit', { answers: { confidence: 9 }, clientTs: Date.now() });
      expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'answers.confidence' } });
      const answers = { confidence: 4, ai_usefulness: 5, speed: 3, attention: 4, satisfaction: 4, comments: 'fine' };
      state = await callOk(socket, 'survey:submit', { answers, clientTs: Date.now() });
      expect(state).toMatchObject({ step: 'complete', status: 'completed', surveySubmitted: true });
      expect(state.completion).toEqual({
        outcome: 'completed',
        code: 'C1VIZ2026',
        redirectUrl: 'https://app.prolific.com/submissions/complete?cc=C1VIZ2026',
      });
      // Once complete, nothing else is accepted.
      expect(await call(socket, 'chat:send', { clientId: 'flow-msg-2', text: 'hi', clientTs: Date.now() })).toMatchObject({ ok: false, error: { code: 'session_over' } });

      const events = (await t.server.store.events.listForSession(j.sessionId));
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect((await eventTypes(j.sessionId)).filter((x) => !x.startsWith('connection.'))).toEqual([
        'session.created',
        'consent.accepted',
        'step.changed',
        'step.changed',
        'message.user',
        'reply.started',
        'reply.finished',
        'telemetry.paste',
        'telemetry.blur',
        'upload.stored',
        'artifact.draft_saved',
        'artifact.submitted',
        'step.changed',
        'survey.submitted',
        'step.changed',
        'session.completed',
      ]);
      expect(events.find((e) => e.type === 'consent.accepted')!.payload).toMatchObject({ version: '2026-11-1', textHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(events.find((e) => e.type === 'telemetry.paste')!.payload).toEqual({ step: 'workspace', chars: 120, target: 'code' });
      expect(events.find((e) => e.type === 'survey.submitted')!.payload).toMatchObject({ attentionCheckPassed: true });
      const session = (await t.server.store.sessions.get(j.sessionId))!;
      expect(session).toMatchObject({ status: 'completed', step: 'complete', consentVersion: '2026-11-1' });
      expect(session.submittedAt).not.toBeNull();
      // One row per answer, in the survey's order, each with its value in the column of its kind.
      const stored = await t.server.store.surveyAnswers.listForSession(j.sessionId);
      expect(stored.map((a) => [a.itemId, a.valueNum ?? a.valueText])).toEqual([
        ['confidence', 4], ['ai_usefulness', 5], ['speed', 3], ['attention', 4], ['satisfaction', 4], ['comments', 'fine'],
      ]);
      // Identity lives only in identities; no science row mentions it.
      const identity = (await t.server.store.identities.get(j.sessionId))!;
      expect(identity).toMatchObject({ platform: 'prolific', platformStudyId: 'st-1', platformSessionId: 'se-1' });
      const science = JSON.stringify([events, session, (await t.server.store.messages.listForSession(j.sessionId))]);
      expect(science).not.toContain(identity.platformUserId!);
    });

    it('decline ends the session with the declined code', async () => {
      const j = await join(t, 'travel-planning', { participant_label: pid() });
      const socket = await connectSocket(t, j.token);
      const state = await callOk(socket, 'consent:respond', { accept: false, version: '2026-11-1', clientTs: Date.now() });
      expect(state).toMatchObject({ step: 'complete', status: 'declined', completion: { outcome: 'declined', code: 'D0TRV2026', redirectUrl: null } });
      expect((await eventTypes(j.sessionId)).filter((x) => !x.startsWith('connection.'))).toEqual(['session.created', 'consent.declined', 'step.changed', 'session.completed']);
    });

    it('three tabs answering consent, leaving the instructions and sending the survey at once record each step once; a racing decline changes nothing', async () => {
      const j = await join(t, 'travel-planning', { participant_label: pid() });
      const tabs = await Promise.all([connectSocket(t, j.token), connectSocket(t, j.token), connectSocket(t, j.token)]);
      const consent = { version: '2026-11-1', clientTs: Date.now() };
      const answers = await Promise.all([
        callOk(tabs[0]!, 'consent:respond', { ...consent, accept: true }),
        callOk(tabs[1]!, 'consent:respond', { ...consent, accept: true }),
        callOk(tabs[2]!, 'consent:respond', { ...consent, accept: false }),
      ]);
      const outcome = (await t.server.store.sessions.get(j.sessionId))!;
      // Whichever answer came first decided; every tab is answered with the state it left.
      for (const a of answers) expect(a).toMatchObject({ step: outcome.step, status: outcome.status });
      if (outcome.step === 'instructions') {
        const advanced = await Promise.all(tabs.map((tab) => callOk(tab, 'step:advance', { from: 'instructions', clientTs: Date.now() })));
        for (const a of advanced) expect(a.step).toBe('workspace');
        const atSurvey = await callOk(tabs[0]!, 'artifact:submit', { fields: artifactValues(advanced[0]!, {}, 1), clientTs: Date.now() });
        // Three survey submissions at once: one completes the session, the others find it over and write nothing.
        const sent = tabs.map((_, i) => surveyAnswers(atSurvey, () => i / 3));
        const submitted = await Promise.all(tabs.map((tab, i) => call(tab, 'survey:submit', { answers: sent[i], clientTs: Date.now() })));
        expect(submitted.filter((r) => r.ok)).toHaveLength(1);
        for (const r of submitted.filter((r) => !r.ok)) expect(r).toMatchObject({ ok: false, error: { code: 'session_over' } });
        const winner = sent[submitted.findIndex((r) => r.ok)]!;
        const stored = await t.server.store.surveyAnswers.listForSession(j.sessionId);
        expect(Object.fromEntries(stored.map((a) => [a.itemId, a.valueNum ?? a.valueText]))).toEqual(winner);
        expect(new Set(stored.map((a) => a.eventSeq)).size).toBe(1);
      }
      const types = (await eventTypes(j.sessionId)).filter((x) => !x.startsWith('connection.'));
      expect(types).toEqual(
        outcome.step === 'instructions'
          ? ['session.created', 'consent.accepted', 'step.changed', 'step.changed', 'artifact.submitted', 'step.changed', 'survey.submitted', 'step.changed', 'session.completed']
          : ['session.created', 'consent.declined', 'step.changed', 'session.completed'],
      );
      for (const tab of tabs) tab.close();
    });

    it('two tabs of one browser share the session; reopening the link with the same SESSION_ID elsewhere resumes it', async () => {
      const id = pid();
      const link = { PROLIFIC_PID: id, SESSION_ID: 'own-visit' };
      const first = await join(t, 'visualization', link);
      const socket = await connectSocket(t, first.token);
      await toWorkspace(socket);
      // A second tab of the same browser reads the stored token: no new join.
      const again = await connectSocket(t, first.token);
      expect((await callOk(again, 'session:state', {})).step).toBe('workspace');
      // Both tabs stay usable and in step: a submission in one is pushed to the other.
      const pushed = nextPush(socket, 'session:state');
      const noPlot = await call(again, 'artifact:submit', { fields: { hypothesis: 'h', code: 'c', plot: '', interpretation: 'i' }, clientTs: Date.now() });
      expect(noPlot).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'fields.plot' } });
      const upload = await fetch(`${t.server.url}/api/session/upload?field=plot`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.token}`, 'content-type': 'image/png' },
        body: new Uint8Array(tinyPng()),
      }).then((r) => r.json());
      await callOk(again, 'artifact:submit', { fields: { hypothesis: 'h', code: 'c', plot: upload.data.uploadId, interpretation: 'i' }, clientTs: Date.now() });
      expect((await pushed).step).toBe('survey');
      // Another browser with the participant's own link: the same session, a new token (the old one is revoked).
      const second = await join(t, 'visualization', link);
      expect(second).toMatchObject({ sessionId: first.sessionId, resumed: true });
      expect(second.token).not.toBe(first.token);
      const moved = await connectSocket(t, second.token);
      expect((await callOk(moved, 'session:state', {})).step).toBe('survey');
      expect(await t.server.store.identities.countByPlatformUserId(id)).toBe(1);
      // The same id in another study is a different participation.
      const other = await join(t, 'travel-planning', { PROLIFIC_PID: id });
      expect(other.sessionId).not.toBe(first.sessionId);
    });

    it('MTurk preview shows the study without creating a session', async () => {
      const before = await t.server.store.sessions.count();
      const res = await postJson(`${t.server.url}/api/join`, { studyId: 'visualization', params: { assignmentId: 'ASSIGNMENT_ID_NOT_AVAILABLE', hitId: 'h1' } });
      expect(res.body).toEqual({ ok: true, data: { preview: true } });
      expect(await t.server.store.sessions.count()).toBe(before);
      const pub = await fetch(`${t.server.url}/api/studies/visualization/public`).then((r) => r.json());
      expect(pub).toMatchObject({ ok: true, data: { id: 'visualization', open: true, timeLimitMinutes: 30 } });
      const worker = await join(t, 'visualization', { assignmentId: 'A1', workerId: pid(), hitId: 'h1' });
      expect((await t.server.store.identities.get(worker.sessionId))).toMatchObject({ platform: 'mturk', platformSessionId: 'A1' });
    });

    it('a reconnect resumes exactly: step, messages, draft, uploads', async () => {
      const j = await join(t, 'visualization', { PROLIFIC_PID: pid() });
      const socket = await connectSocket(t, j.token);
      await toWorkspace(socket);
      const done = nextPush(socket, 'chat:done');
      await callOk(socket, 'chat:send', { clientId: 'resume-msg-1', text: 'Hello there', clientTs: Date.now() });
      await done;
      const up = await upload(j.token, 'plot', tinyPng());
      await callOk(socket, 'artifact:draft', { fields: { hypothesis: 'draft text', plot: up.body.data.uploadId }, clientTs: Date.now() });
      const before = await callOk(socket, 'session:state', {});
      socket.disconnect();

      const back = await connectSocket(t, j.token);
      const after = await callOk(back, 'session:state', {});
      expect(after.step).toBe('workspace');
      expect(after.messages).toEqual(before.messages);
      expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(after.draft!.fields).toEqual({ hypothesis: 'draft text', plot: up.body.data.uploadId });
      expect(after.uploads).toHaveLength(1);
      expect(after.deadline).toBe(before.deadline);
      const types = await eventTypes(j.sessionId);
      expect(types.filter((x) => x === 'connection.opened')).toHaveLength(2);
      expect(types).toContain('connection.closed');
    });

    it("a token reaches only its own session: no reading or writing another's", async () => {
      const a = await join(t, 'visualization', { PROLIFIC_PID: pid() });
      const b = await join(t, 'visualization', { PROLIFIC_PID: pid() });
      const sa = await connectSocket(t, a.token);
      const sb = await connectSocket(t, b.token);
      await toWorkspace(sa);
      await toWorkspace(sb);
      const upB = await upload(b.token, 'plot', tinyPng());
      const idB = upB.body.data.uploadId as string;

      // A cannot fetch B's upload, nor reference it in its own artifact.
      const stolen = await fetch(`${t.server.url}/api/session/uploads/${idB}`, { headers: { authorization: `Bearer ${a.token}` } });
      expect(stolen.status).toBe(404);
      const own = await fetch(`${t.server.url}/api/session/uploads/${idB}`, { headers: { authorization: `Bearer ${b.token}` } });
      expect(own.status).toBe(200);
      expect(Buffer.from(await own.arrayBuffer()).equals(tinyPng())).toBe(true);
      const draft = await call(sa, 'artifact:draft', { fields: { plot: idB }, clientTs: Date.now() });
      expect(draft).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'fields.plot' } });

      // Session state and pushes are per session: A's socket sees only A.
      expect((await callOk(sa, 'session:state', {})).sessionId).toBe(a.sessionId);
      let leaked = 0;
      sa.on('chat:delta', () => leaked++);
      const done = nextPush(sb, 'chat:done');
      await callOk(sb, 'chat:send', { clientId: 'iso-msg-b', text: 'Only for B', clientTs: Date.now() });
      await done;
      expect(leaked).toBe(0);

      // Payloads cannot name another session (strict schemas reject extra keys).
      const sneaky = await call(sa, 'session:state', { sessionId: b.sessionId });
      expect(sneaky).toMatchObject({ ok: false, error: { code: 'invalid_input' } });

      // No token / bad token: refused.
      expect((await fetch(`${t.server.url}/api/session/uploads/${idB}`)).status).toBe(401);
      const noAuth = connect(t.server.url, { auth: { token: 'x'.repeat(43) }, transports: ['websocket'], reconnection: false, forceNew: true });
      const err = await new Promise<Error>((resolve) => noAuth.once('connect_error', resolve));
      expect(err.message).toBe('unauthorized');
      noAuth.close();
    });

    it('rejects invalid events with an error naming event and field, and writes nothing', async () => {
      const j = await join(t, 'visualization', { PROLIFIC_PID: pid() });
      const socket = await connectSocket(t, j.token);
      await toWorkspace(socket);
      const count = async () => ({
        events: (await t.server.store.events.count(j.sessionId)),
        messages: (await t.server.store.messages.listForSession(j.sessionId)).length,
        draft: (await t.server.store.artifacts.getDraft(j.sessionId)),
      });
      const before = await count();
      const cases: Array<[string, unknown, string | undefined]> = [
        ['chat:send', { clientId: 'short', text: 'hi', clientTs: 1 }, 'clientId'],
        ['chat:send', { clientId: 'valid-id-123', text: '   ', clientTs: 1 }, 'text'],
        ['chat:send', { clientId: 'valid-id-123', text: 'hi' }, 'clientTs'],
        ['chat:send', 'not an object', undefined],
        ['chat:send', null, undefined],
        ['artifact:draft', { fields: { hypothesis: 42 }, clientTs: 1 }, 'fields.hypothesis'],
        ['artifact:draft', { fields: { nope: 'x' }, clientTs: 1 }, 'fields.nope'],
        ['artifact:draft', { fields: { hypothesis: 'x'.repeat(1001) }, clientTs: 1 }, 'fields.hypothesis'],
        ['telemetry', { kind: 'keylog', clientTs: 1 }, 'kind'],
        ['consent:respond', { accept: 'yes', version: '1', clientTs: 1 }, 'accept'],
        ['step:advance', { from: 'nowhere', clientTs: 1 }, 'from'],
        ['step:advance', { from: 'workspace', clientTs: 1 }, 'from'],
        ['survey:submit', { answers: {}, clientTs: 1 }, undefined],
      ];
      for (const [event, payload, field] of cases) {
        const reply = await call(socket, event as 'chat:send', payload);
        expect(reply.ok, `${event} ${JSON.stringify(payload)}`).toBe(false);
        if (!reply.ok) {
          if (field !== undefined) expect(reply.error.field, `${event} ${JSON.stringify(payload)}`).toBe(field);
          if (reply.error.code === 'invalid_input' && typeof payload !== 'object') expect(reply.error.message).toContain(event);
        }
      }
      const schemaError = await call(socket, 'chat:send', { clientId: 'short', text: 'hi', clientTs: 1 });
      expect(!schemaError.ok && schemaError.error.message).toMatch(/^chat:send: clientId: /);
      expect(await count()).toEqual(before);
    });

    it('refuses bad uploads with a clear message and stores nothing', async () => {
      const j = await join(t, 'visualization', { PROLIFIC_PID: pid() });
      const socket = await connectSocket(t, j.token);
      await toWorkspace(socket);
      const eventsBefore = (await t.server.store.events.count(j.sessionId));
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      expect(await upload(j.token, 'plot', svg, 'image/svg+xml')).toMatchObject({ status: 400, body: { ok: false, error: { field: 'content-type' } } });
      expect(await upload(j.token, 'plot', Buffer.from('not a png at all'), 'image/png')).toMatchObject({ status: 400, body: { error: { field: 'body' } } });
      expect(await upload(j.token, 'hypothesis', tinyPng())).toMatchObject({ status: 400, body: { error: { field: 'field' } } });
      const huge = Buffer.concat([tinyPng(), Buffer.alloc(6 * 1024 * 1024)]);
      const big = await upload(j.token, 'plot', huge);
      expect(big).toMatchObject({ status: 413, body: { ok: false, error: { code: 'too_large' } } });
      expect(big.body.error.message).toMatch(/5 MB/);
      expect((await t.server.store.uploads.listForSession(j.sessionId))).toHaveLength(0);
      expect((await t.server.store.events.count(j.sessionId))).toBe(eventsBefore);
    });

    it('validates POST /api/join and refuses unknown or closed studies', async () => {
      const bad = await postJson(`${t.server.url}/api/join`, { studyId: 'visualization', params: { PROLIFIC_PID: 5 } });
      expect(bad).toMatchObject({ status: 400, body: { ok: false, error: { code: 'invalid_input', field: 'params.PROLIFIC_PID' } } });
      const unknown = await postJson(`${t.server.url}/api/join`, { studyId: 'nope', params: {} });
      expect(unknown).toMatchObject({ status: 404, body: { ok: false, error: { code: 'not_found' } } });
      (await t.server.store.studies.setStatus('travel-planning', 'closed', Date.now()));
      try {
        const closed = await postJson(`${t.server.url}/api/join`, { studyId: 'travel-planning', params: { PROLIFIC_PID: pid() } });
        expect(closed).toMatchObject({ status: 403, body: { ok: false, error: { code: 'study_unavailable' } } });
      } finally {
        (await t.server.store.studies.setStatus('travel-planning', 'live', Date.now()));
      }
    });
  });
});
