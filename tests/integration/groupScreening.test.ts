/**
 * The screening question of a group condition over a real server and real socket.io clients, on both engines
 * (studies/group-quota-demo.yaml: one experienced planner and two newcomers per group, by the answer to
 * `planning_experience`): the lobby's view asks the question; one experienced and two newcomers answer it with their
 * lobby join and are grouped by it, a fourth newcomer waits and is released at the timeout; a missing or unknown
 * answer is refused; an answer is final (a changed one is refused once seated); the answer is a survey answer of the
 * session (the post-task survey still stores its own beside it), in the trajectory and in the export.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupView } from '../../common/groupEvents';
import { SCREENING_SURVEY_ID } from '../../common/group';
import { exportStudy } from '../../research/exports/exportStudy';
import { runGroupSimulation } from '../../research/simulation/groupSimulation';
import { surveyAnswers } from '../../research/simulation/participantInputs';
import { collect, consentedPerson, groupCall, groupOk, grouped, type GroupPerson } from '../support/groupClients';
import { groupStudyDirs } from '../support/groupTestStudies';
import { callOk, eventually, startTestServer, type TestServer } from '../support/integrationHarness';
import { createTestStoreTarget, STORE_ENGINES } from '../support/testStores';

const STUDY = 'group-quota-demo';
const KEY = 'planning_experience';

describe.each(STORE_ENGINES)('group screening (%s)', (engine) => {
  let t: TestServer;
  let clock = Date.UTC(2026, 11, 4, 9);
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    // Two experienced and one newcomer per group: what the simulator's answers by turns (0, 1, 0, …) fill.
    const demo = fs.readFileSync(path.join(dirs.studiesDir, `${STUDY}.yaml`), 'utf8');
    fs.writeFileSync(path.join(dirs.studiesDir, 'group-quota-sim.yaml'), demo.replace('seats: { experienced: 1, newcomer: 2 }', 'seats: { experienced: 2, newcomer: 1 }'));
    const target = await createTestStoreTarget(engine, 'group-screening');
    t = await startTestServer({
      engine,
      dataDir: target.dataDir,
      databaseUrl: target.databaseUrl,
      studiesDir: dirs.studiesDir,
      surveysDir: dirs.surveysDir,
      now: () => clock,
      groups: { sweepMs: 60_000 },
    });
  });
  afterAll(async () => {
    await t?.close();
    dirs.cleanup();
  });

  async function arrive(): Promise<GroupPerson> {
    clock += 1;
    return consentedPerson(t, STUDY);
  }
  const joinAs = (p: GroupPerson, answer: string) => groupCall(p.socket, 'group:lobby:join', { answers: { [KEY]: answer } });

  it('groups one experienced and two newcomers by their answers; a fourth newcomer waits, then is released', async () => {
    const expert = await arrive();
    // Before the lobby the view asks the condition's question, as the study file declares it.
    const before = await groupOk<GroupView>(expert.socket, 'group:status');
    expect(before.state).toBe('not_joined');
    expect(before.state === 'not_joined' && before.screening.map((q) => [q.id, q.options.map((o) => o.value)])).toEqual([[KEY, ['experienced', 'newcomer']]]);

    // No answer, an answer that is no option, or a question the condition does not ask: refused, nothing stored.
    expect(await groupCall(expert.socket, 'group:lobby:join', {})).toMatchObject({ ok: false, error: { code: 'invalid_input', field: `answers.${KEY}` } });
    expect(await joinAs(expert, 'guru')).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('"guru" is not one of experienced, newcomer') } });
    expect(await groupCall(expert.socket, 'group:lobby:join', { answers: { [KEY]: 'experienced', age: '30' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', field: 'answers.age' },
    });
    expect(await t.server.store.surveyAnswers.listForSession(expert.sessionId)).toEqual([]);
    expect(await t.server.store.groups.getLobbyEntry(expert.sessionId)).toBeUndefined();

    expect(await joinAs(expert, 'experienced')).toMatchObject({ ok: true, data: { state: 'waiting', waiting: 1 } });
    const n1 = await arrive();
    expect(await joinAs(n1, 'newcomer')).toMatchObject({ ok: true, data: { state: 'waiting', waiting: 2 } });
    // A second experienced person finds no free seat beside the first one's group-to-be: they wait for the next group.
    const expert2 = await arrive();
    expect(await joinAs(expert2, 'experienced')).toMatchObject({ ok: true, data: { state: 'waiting', waiting: 3 } });
    const n2 = await arrive();
    const expertViews = collect(expert.socket, 'group:view');
    const formed = await joinAs(n2, 'newcomer');
    if (!formed.ok) throw new Error(`join failed: ${formed.error.message}`);
    const view = grouped(formed.data as GroupView)!;
    const seated = (await t.server.store.groups.listMembers(view.groupId)).flatMap((m) => (m.sessionId ? [m.sessionId] : []));
    expect(seated).toEqual([expert.sessionId, n1.sessionId, n2.sessionId]);
    await eventually('the expert sees the group', () => expertViews.find((v) => v.state === 'grouped'));

    const n3 = await arrive();
    expect(await joinAs(n3, 'newcomer')).toMatchObject({ ok: true, data: { state: 'waiting', waiting: 2 } });
    const joined = (await t.server.store.groups.listEvents(STUDY)).filter((e) => e.type === 'lobby_joined');
    expect(joined.map((e) => [e.sessionId, e.payload])).toEqual([
      [expert.sessionId, { quota_value: 'experienced' }],
      [n1.sessionId, { quota_value: 'newcomer' }],
      [expert2.sessionId, { quota_value: 'experienced' }],
      [n2.sessionId, { quota_value: 'newcomer' }],
      [n3.sessionId, { quota_value: 'newcomer' }],
    ]);

    // The lobby's timeout (30 s, start_smaller with at least 2): one experienced and one newcomer can start a group.
    clock += 31_000;
    await t.server.groups.sweep();
    const late = (await t.server.store.groups.listEvents(STUDY)).filter((e) => e.type === 'grouped' && (e.sessionId === expert2.sessionId || e.sessionId === n3.sessionId));
    expect(late.map((e) => e.sessionId).sort()).toEqual([expert2.sessionId, n3.sessionId].sort());

    // A newcomer alone in the lobby at the timeout: fewer than size.min, released with the lobby_timeout code.
    const lone = await arrive();
    expect(await joinAs(lone, 'newcomer')).toMatchObject({ ok: true, data: { state: 'waiting', waiting: 1 } });
    clock += 31_000;
    await t.server.groups.sweep();
    expect(await groupOk(lone.socket, 'group:status')).toMatchObject({ state: 'released', code: 'L0GRP2026' });
  });

  it('keeps the answer final once given, stores it as a survey answer in the trajectory, and exports it', async () => {
    const people: GroupPerson[] = [];
    for (const answer of ['experienced', 'newcomer', 'newcomer']) {
      const p = await arrive();
      expect((await joinAs(p, answer)).ok).toBe(true);
      people.push(p);
    }
    const [expert] = people as [GroupPerson];
    const view = grouped(await groupOk<GroupView>(expert.socket, 'group:status'))!;
    expect(view.state).toBe('grouped');
    // Seated: a changed answer is refused, the same one (or none) is a harmless rejoin.
    expect(await joinAs(expert, 'newcomer')).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('cannot be changed') } });
    expect(await joinAs(expert, 'experienced')).toMatchObject({ ok: true, data: { state: 'grouped', groupId: view.groupId } });
    expect(await groupOk(expert.socket, 'group:lobby:join')).toMatchObject({ state: 'grouped', groupId: view.groupId });

    const answers = await t.server.store.surveyAnswers.listForSession(expert.sessionId);
    expect(answers.map((a) => [a.surveyId, a.itemId, a.itemKind, a.valueText, a.valueNum])).toEqual([[SCREENING_SURVEY_ID, KEY, 'choice', 'experienced', null]]);
    const events = await t.server.store.events.listForSession(expert.sessionId);
    const screened = events.filter((e) => e.type === 'screening.answered');
    expect(screened.map((e) => e.payload)).toEqual([{ surveyId: SCREENING_SURVEY_ID, answers: { [KEY]: 'experienced' } }]);
    expect(answers[0]!.eventSeq).toBe(screened[0]!.seq);
    // Answered before the lobby, not the post-task survey: the session has not submitted its survey.
    let state = await callOk(expert.socket, 'session:state', {});
    expect(state.surveySubmitted).toBe(false);

    // On to the survey: its answers are stored beside the screening answer.
    await callOk(expert.socket, 'step:advance', { from: 'instructions', clientTs: clock });
    state = await callOk(expert.socket, 'artifact:submit', { fields: { plan: 'Museum at 10, lunch at 12:30, back by 17:00.' }, clientTs: clock });
    expect(state.step).toBe('survey');
    state = await callOk(expert.socket, 'survey:submit', { answers: surveyAnswers(state, () => 0.5), clientTs: clock });
    expect(state.surveySubmitted).toBe(true);
    const after = await t.server.store.surveyAnswers.listForSession(expert.sessionId);
    expect(after[0]).toMatchObject({ surveyId: SCREENING_SURVEY_ID, itemId: KEY });
    expect(new Set(after.slice(1).map((a) => a.surveyId))).toEqual(new Set(['travel-post']));

    const out = path.join(t.dataDir, `export-${engine}`);
    await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: STUDY, outDir: out, includePilot: false, includeIdentities: false });
    const exported = fs
      .readFileSync(path.join(out, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'screening.answered');
    expect(exported.length).toBeGreaterThanOrEqual(3);
    expect(exported.every((e) => typeof e.session_id === 'string' && !Object.values(e).includes(expert.sessionId))).toBe(true);
    expect(exported.map((e) => e.payload.answers[KEY]).filter((v) => v === 'experienced').length).toBeGreaterThanOrEqual(1);
  });

  it('lets the group simulation answer the screening question and fill the quota', async () => {
    const s = await runGroupSimulation({ url: t.server.url, study: 'group-quota-sim', participants: 3, runId: engine, turns: 1, dropout: 0, seed: 1, thinkMs: 0, timeoutMs: 20_000 });
    expect(s.errors).toEqual([]);
    expect([s.grouped, s.groups, s.released, s.completed]).toEqual([3, 1, 0, 3]);
    const sessions = await t.server.store.sessions.listByStudy('group-quota-sim');
    const values = await Promise.all(sessions.map(async (x) => (await t.server.store.surveyAnswers.listForSession(x.id)).find((a) => a.surveyId === SCREENING_SURVEY_ID)?.valueText));
    expect(values.sort()).toEqual(['experienced', 'experienced', 'newcomer']);
  });
});
