/**
 * The stopping rule is checked on each join (issue 24), not only at start-up and on the dashboard: a real server on
 * both engines, the plan locked after start-up (so the start-up check saw nothing). With n_per_condition 1, the first
 * session that starts in a condition that already has one consented session records the deviation in the join's
 * transaction, at the time of its session.created event, once per condition however many more join; the sessions
 * still start (collection never stops). With a stop date in the past, the first session after it records it.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { lockPreregistration } from '../../lib/preregistration';
import type { Store } from '../../lib/storage';
import { STORE_ENGINES } from '../support/testStores';
import { copyVisualizationStudy, type StudyFilesCopy } from '../support/preregistrationFixture';
import { join, joinToWorkspace, startTestServer, type TestServer } from '../support/integrationHarness';

const copies: StudyFilesCopy[] = [];
afterAll(() => copies.forEach((c) => c.remove()));

async function serverWithPlan(engine: (typeof STORE_ENGINES)[number], stoppingRule: string): Promise<TestServer> {
  const files = copyVisualizationStudy();
  copies.push(files);
  files.edit(files.planFile, 'stopping_rule:\n  n_per_condition: 60', `stopping_rule:\n  ${stoppingRule}`);
  const t = await startTestServer({ engine, studiesDir: files.studiesDir, surveysDir: files.surveysDir });
  const study = t.server.config.studies.get('visualization')!;
  const locked = await lockPreregistration({ store: t.server.store, study, survey: t.server.config.surveys.get(study.survey), actor: 'researcher', now: Date.now(), outFile: null });
  expect(locked.outcome).toBe('locked');
  return t;
}

const createdAt = async (store: Store, sessionId: string) => (await store.events.listForSession(sessionId)).find((e) => e.type === 'session.created')!.serverTs;

describe.each(STORE_ENGINES)('the stopping rule at each join (%s)', (engine) => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('records the first session past n_per_condition before its first event, once per condition', async () => {
    t = await serverWithPlan(engine, 'n_per_condition: 1');
    const store = t.server.store;
    // One consented session in each condition (assignment balances): the sample is at the rule, not past it.
    const first = [await joinToWorkspace(t, 'visualization', { PROLIFIC_PID: 'p1' }), await joinToWorkspace(t, 'visualization', { PROLIFIC_PID: 'p2' })];
    expect(new Set(await Promise.all(first.map(async (j) => (await store.sessions.get(j.sessionId))!.conditionId))).size).toBe(2);
    expect(await store.preregistrations.deviations('visualization')).toEqual([]);

    const third = await join(t, 'visualization', { PROLIFIC_PID: 'p3' });
    const condition = (await store.sessions.get(third.sessionId))!.conditionId;
    const [d, ...rest] = await store.preregistrations.deviations('visualization');
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ version: 1, kind: 'sample_beyond_stopping_rule', field: `stopping_rule.n_per_condition.${condition}` });
    expect(d!.message).toBe(`a new session started in condition "${condition}", which already had 1 consented session: the stopping rule's 1 per condition was reached`);
    // Recorded in the join's transaction, at the time of the session's first event.
    expect(d!.detectedAt).toBe(await createdAt(store, third.sessionId));

    // More joins: each condition's deviation once, and every session starts.
    const more = [];
    for (const pid of ['p4', 'p5', 'p6', 'p7']) more.push(await join(t, 'visualization', { PROLIFIC_PID: pid }));
    const conditions = new Set([condition, ...(await Promise.all(more.map(async (j) => (await store.sessions.get(j.sessionId))!.conditionId)))]);
    const all = await store.preregistrations.deviations('visualization');
    expect(all.map((x) => x.field).sort()).toEqual([...conditions].map((c) => `stopping_rule.n_per_condition.${c}`).sort());
    const audited = (await store.audit.list({ studyId: 'visualization' })).filter((a) => a.action === 'preregistration_deviation');
    expect(audited).toHaveLength(all.length);
  }, 60_000);

  it('records the first session after the stop date, once', async () => {
    t = await serverWithPlan(engine, 'date: 2020-01-31');
    const store = t.server.store;
    const a = await join(t, 'visualization', { PROLIFIC_PID: 'late-1' });
    await join(t, 'visualization', { PROLIFIC_PID: 'late-2' });
    const deviations = await store.preregistrations.deviations('visualization');
    expect(deviations.map((d) => `${d.kind} ${d.field}: ${d.message}`)).toEqual(['session_after_stop_date stopping_rule.date: 1 session collected after the stop date 2020-01-31']);
    expect(deviations[0]!.detectedAt).toBe(await createdAt(store, a.sessionId));
  }, 60_000);
});
