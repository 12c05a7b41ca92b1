/**
 * Every listing of the store returns the same rows in the same order on both engines, and that order does not
 * depend on the order the rows were inserted in: the same rows go into one store of each engine in one order and
 * into another of each engine in the reverse order (ties on every listing's first sort key), and all four stores
 * must answer every listing identically.
 *
 * What insertion itself numbers (events.seq, events.id, audit_log.id, artifact versions, the order of a survey
 * submit's answers) is the order by design, so those rows are appended in the same order everywhere; every other
 * table's rows are reversed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { STORE_ENGINES, openTestStore } from '../../tests/support/testStores';
import type { JudgementRecord, MessageRow, Store, StoreEngine } from '.';
import { userMessageRow } from './contract/userMessageAck';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
});

type Order = 'forward' | 'reverse';
const inOrder = <T>(rows: readonly T[], order: Order): T[] => (order === 'forward' ? [...rows] : [...rows].reverse());
async function each<T>(rows: readonly T[], order: Order, fn: (row: T) => Promise<unknown>): Promise<void> {
  for (const r of inOrder(rows, order)) await fn(r);
}

const STUDY = 'study-a';
// Ties on created_at (10) among s-b, s-c, s-a; s-d is older. Ids sort differently from the insertion order.
const SESSIONS = [
  { id: 's-c', taskId: 't1', conditionId: 'c2', isPilot: false, createdAt: 10 },
  { id: 's-a', taskId: 't1', conditionId: 'c1', isPilot: false, createdAt: 10 },
  { id: 's-d', taskId: 't2', conditionId: 'c1', isPilot: true, createdAt: 5 },
  { id: 's-b', taskId: 't1', conditionId: 'c2', isPilot: false, createdAt: 10 },
];
const SESSION_IDS = SESSIONS.map((s) => s.id);
const OWNER = { node: 'node-1', incarnation: 'inc-1' };

function message(id: string, sessionId: string, eventSeq: number, createdAt: number, role: 'user' | 'assistant' = 'user'): MessageRow {
  return { ...userMessageRow({ id, sessionId, eventSeq, text: `text ${id}`, clientId: `client-${id}`, tokens: 3, createdAt }), role };
}

function judgement(sessionId: string, sample: number, requestedModel: string, score: number): JudgementRecord {
  return {
    sessionId, artifactVersion: 1, rubricId: 'r', rubricVersion: '1', rubricHash: 'rh', templateHash: 'th', parserVersion: 'p1',
    sample, requestedModel, reportedModel: null, systemFingerprint: null, provider: 'openai', providerUrl: null,
    parameters: { temperature: 0, maxTokens: 10 }, seed: sample, score, parseOk: true, failureReason: null, rawReply: `score ${score}`, reaskReply: null,
    reasked: false, usage: null, latencyMs: 1, cached: false, cacheKey: `k-${sessionId}-${sample}-${requestedModel}`, transportError: null, createdAt: 50,
  };
}

/** The same rows, each table's in `order`. */
async function seed(s: Store, order: Order): Promise<void> {
  await each([STUDY, 'study-0', 'study-z'], order, (id) => s.studies.upsertLoaded(id, `Study ${id}`, 'hash', 'live', 1));
  await each(SESSIONS, order, (x) => s.sessions.insert({ ...x, studyId: STUDY }));
  // Consented at the same time (ties for listActiveConsentedBefore); s-b ended.
  await each(SESSION_IDS, order, (id) => s.sessions.update(id, { step: 'workspace', consentedAt: 20 }, 20));
  await s.sessions.update('s-b', { status: 'completed', endedAt: 30 }, 30);

  // Appended in one order everywhere (seq and events.id are the trajectory's order).
  for (const id of ['s-a', 's-b', 's-c', 's-d']) {
    await s.events.append(id, 'step.changed', { to: 'workspace' }, 21, null);
    await s.events.append(id, 'step.changed', { to: 'survey' }, 22, null);
    await s.events.append(id, 'reply.started', { replyId: `reply-${id}`, replyTo: `m1-${id}` }, 23, null);
  }
  // Messages with ties on event_seq and on created_at.
  const messages = SESSION_IDS.flatMap((id) => [
    message(`m3-${id}`, id, 2, 40, 'assistant'),
    message(`m1-${id}`, id, 1, 30),
    message(`m2-${id}`, id, 2, 40),
    message(`m0-${id}`, id, 2, 35),
  ]);
  await each(messages, order, (m) => s.messages.insert(m));

  for (const id of ['s-a', 's-b', 's-c', 's-d']) {
    await s.artifacts.insertVersion(id, { answer: 'one' }, 5, 60);
    await s.artifacts.insertVersion(id, { answer: 'two' }, 6, 61);
  }
  const uploads = SESSION_IDS.flatMap((id) =>
    ['u-2', 'u-1', 'u-3'].map((u) => ({
      id: `${u}-${id}`, sessionId: id, fieldId: 'file', fileName: `${u}.png`, contentType: 'image/png', bytes: 1, sha256: 'x',
      storagePath: `uploads/${id}/${u}.png`, eventSeq: 7, createdAt: 70,
    })),
  );
  await each(uploads, order, (u) => s.uploads.insert(u));
  // Two submits per session: ties on event_seq within each, items answered out of id order (the order answered is
  // the survey's, data like a trajectory's, so it is the same in every store; the sessions' order is reversed).
  for (const id of inOrder(SESSION_IDS, order)) {
    const answer = (itemId: string, eventSeq: number, value: number) => ({
      sessionId: id, surveyId: 'post', itemId, itemKind: 'likert', valueNum: value, valueText: null, eventSeq, createdAt: 80,
    });
    await s.surveyAnswers.insert([answer('q2', 8, 2), answer('q1', 8, 1), answer('q3', 8, 3)]);
    await s.surveyAnswers.insert([answer('q9', 9, 5), answer('q0', 9, 4)]);
  }

  const judgements = SESSION_IDS.flatMap((id) => [judgement(id, 1, 'model-b', 4), judgement(id, 0, 'model-b', 3), judgement(id, 0, 'model-a', 5), judgement(id, 1, 'model-a', 2)]);
  await each(judgements, order, (j) => s.judgements.upsert(j));
  // Quality ties (4) for the sessions page's sort by quality.
  await each(SESSION_IDS, order, (id) =>
    s.judgements.setQuality({ sessionId: id, artifactVersion: 1, rubricId: 'r', rubricHash: 'rh', requestedModel: 'model-a', quality: id === 's-d' ? 2 : 4, samples: 4, parsed: 4, updatedAt: 90 }),
  );
  const annotations = SESSION_IDS.flatMap((id) =>
    [2, 0, 1].map((turn) => ({
      sessionId: id, turn, messageId: null, speaker: 'user' as const, friction: turn === 1 ? null : 'none', grounding: ['ack', 'probe'],
      guideHash: 'g', requestedModel: 'm', reportedModel: null, provider: 'offline', providerUrl: null, method: 'batch' as const, failureReason: null, createdAt: 95,
    })),
  );
  await each(annotations, order, (a) => s.annotations.upsert(a));

  // One person with three sessions created at the same time, one per platform (the id is unique per platform).
  await each([['s-c', 'prolific'], ['s-a', 'mturk'], ['s-b', 'lab']] as const, order, ([id, platform]) =>
    s.identities.insert({ sessionId: id, studyId: STUDY, platform, platformUserId: 'PU1', platformStudyId: null, platformSessionId: null, urlParams: {}, createdAt: 100 }),
  );
  await each(SESSION_IDS, order, (id) => s.tokens.insert(`hash-${id}`, id, 100));

  for (const [at, action, studyId] of [[1, 'login', null], [2, 'export', STUDY], [2, 'export', STUDY], [3, 'judge', STUDY], [3, 'approve', 'study-0']] as const) {
    await s.audit.append({ at, actor: 'researcher', action, studyId });
  }
  await each(['tomb-b', 'tomb-a', 'tomb-c'], order, (tombstone) => s.withdrawals.recordTombstone({ studyId: STUDY, tombstone, withdrawnAt: 110, deletedSessions: 0, actor: 'r' }));

  await each(SESSION_IDS, order, (id) =>
    s.reviews.insertIfAbsent({ replyId: `review-${id}`, sessionId: id, studyId: STUDY, replyTo: `m1-${id}`, mode: 'review', createdAt: 120, deadlineAt: 180 }),
  );
  await each(SESSION_IDS, order, (id) => s.replyLeases.acquire({ sessionId: id, replyId: `lease-${id}`, replyTo: `m1-${id}`, startedAt: 130, owner: OWNER }));
  await each(['job-b', 'job-a'], order, (id) => s.adminJobs.claim({ id, kind: id === 'job-a' ? 'export' : 'judge', studyId: STUDY, actor: 'r', owner: OWNER, now: 140, message: 'started' }));
}

async function all<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/** Every listing the store offers, as plain arrays in the order returned (Maps and Sets in iteration order). */
async function listings(s: Store): Promise<Record<string, unknown>> {
  const perSession = async <T>(fn: (id: string) => Promise<T>) => Promise.all(SESSION_IDS.map(fn));
  const out: Record<string, unknown> = {
    'studies.list': await s.studies.list(),
    'sessions.listByStudy': await s.sessions.listByStudy(STUDY),
    'sessions.listActiveConsentedBefore': await s.sessions.listActiveConsentedBefore(1_000),
    'sessions.countByCondition': [...(await s.sessions.countByCondition(STUDY))],
    'sessions.countByTask': [...(await s.sessions.countByTask(STUDY, 0))],
    'identities.listForPlatformUser': await s.identities.listForPlatformUser(STUDY, 'prolific', 'PU1'),
    'tokens.listAll': await s.tokens.listAll(),
    'events.listForSession': await perSession((id) => s.events.listForSession(id)),
    'events.listUnfinishedReplies': await s.events.listUnfinishedReplies(),
    'messages.listForSession': await perSession((id) => s.messages.listForSession(id)),
    'artifacts.listVersions': await perSession((id) => s.artifacts.listVersions(id)),
    'uploads.listForSession': await perSession((id) => s.uploads.listForSession(id)),
    'surveyAnswers.listForSession': await perSession((id) => s.surveyAnswers.listForSession(id)),
    'judgements.listForSession': await perSession((id) => s.judgements.listForSession(id)),
    'judgements.listForStudy': await s.judgements.listForStudy(STUDY),
    'annotations.listForSession': await perSession((id) => s.annotations.listForSession(id)),
    'annotations.listForStudy': await s.annotations.listForStudy(STUDY),
    'audit.list': await s.audit.list(),
    'audit.list study': await s.audit.list({ studyId: STUDY }),
    'audit.counts': Object.entries((await s.audit.counts()).byAction),
    'audit.counts study': Object.entries((await s.audit.counts(STUDY)).byAction),
    'adminQueries.countsByConditionAndStatus': await s.adminQueries.countsByConditionAndStatus(STUDY),
    'adminQueries.monitorRows': await s.adminQueries.monitorRows(STUDY, 0),
    'adminQueries.listSessions': await s.adminQueries.listSessions(STUDY, 10, 0),
    'adminQueries.judgeSamples': await perSession((id) => s.adminQueries.judgeSamples(id)),
    'adminQueries.judgedInTask': await s.adminQueries.judgedInTask(STUDY, 't1'),
    'sessionList.sessionIds': await s.sessionList.sessionIds(STUDY),
    'sessionList.stepsReached': await s.sessionList.stepsReached(STUDY),
    'sessionList.allFacts': await s.sessionList.allFacts(STUDY, 'include'),
    'withdrawals.findSessionIds': await s.withdrawals.findSessionIds(STUDY, 'PU1'),
    'withdrawals.uploadPaths': await s.withdrawals.uploadPaths(['s-b', 's-a']),
    'withdrawals.tombstones': [...(await s.withdrawals.tombstones(STUDY))],
    'reviews.listOpen': await s.reviews.listOpen(),
    'reviews.listOpen study': await s.reviews.listOpen(STUDY),
    'reviews.listForSession': await perSession((id) => s.reviews.listForSession(id)),
    'replyLeases.list': await s.replyLeases.list(),
    'replyLeases.listTakeoverCandidates': await s.replyLeases.listTakeoverCandidates(1_000, OWNER),
    'replyLeases.heartbeat': await s.replyLeases.heartbeat(OWNER, ['lease-s-d', 'lease-s-a', 'lease-s-c', 'lease-s-b'], 150),
  };
  for (const sort of ['started', 'ended', 'time_on_task', 'messages', 'cost', 'quality', 'condition', 'status'] as const) {
    for (const dir of ['asc', 'desc'] as const) out[`sessionList.listPage ${sort} ${dir}`] = await s.sessionList.listPage(STUDY, { pilot: 'include', judged: 'any' }, sort, dir, 3, 0);
  }
  out['sessionList.listPage filtered'] = await s.sessionList.listPage(STUDY, { sessionIds: ['s-b', 's-a', 's-c'], pilot: 'exclude', judged: 'judged' }, 'quality', 'desc', 10, 0);

  const snapshot = await s.openExportSnapshot();
  try {
    out['export.sessions'] = await all(snapshot.sessions(STUDY, true));
    out['export.identities'] = await all(snapshot.identities(STUDY));
    out['export.likertItemIds'] = await snapshot.likertItemIds(STUDY);
    out['export.tombstones'] = [...(await snapshot.tombstones(STUDY))];
    out['export.auditList'] = await snapshot.auditList({ studyId: STUDY });
    for (const id of SESSION_IDS) {
      out[`export.messages ${id}`] = await all(snapshot.messages(id));
      out[`export.events ${id}`] = await all(snapshot.events(id));
      out[`export.artifacts ${id}`] = await snapshot.artifacts(id);
      out[`export.uploads ${id}`] = await snapshot.uploads(id);
      out[`export.judgements ${id}`] = await all(snapshot.judgements(id));
      out[`export.annotations ${id}`] = await all(snapshot.annotations(id));
    }
  } finally {
    await snapshot.close();
  }
  // Last: it changes the jobs it lists.
  out['adminJobs.abandonStale'] = await s.adminJobs.abandonStale(1_000, OWNER, 160);
  return out;
}

describe('listing order', () => {
  it('is the same on every engine and whatever order the rows were inserted in', async () => {
    const answers: { engine: StoreEngine; order: Order; listed: Record<string, unknown> }[] = [];
    for (const engine of STORE_ENGINES) {
      for (const order of ['forward', 'reverse'] as const) {
        const s = await openTestStore(engine, `listing-order-${order}`);
        stores.push(s);
        await seed(s, order);
        answers.push({ engine, order, listed: await listings(s) });
      }
    }
    const [reference, ...others] = answers;
    // Every listing returned something (an empty listing would agree trivially).
    for (const [name, rows] of Object.entries(reference!.listed)) {
      const size = Array.isArray(rows) ? rows.flat().length : (rows as { rows: unknown[] }).rows.length;
      expect(size, name).toBeGreaterThan(0);
    }
    for (const other of others) {
      for (const name of Object.keys(reference!.listed)) {
        expect(other.listed[name], `${name}: ${other.engine} ${other.order} vs ${reference!.engine} ${reference!.order}`).toEqual(reference!.listed[name]);
      }
    }
    expect(answers.length).toBe(STORE_ENGINES.length * 2);
  }, 120_000);

  it('puts ties in the documented order', async () => {
    const s = await openTestStore(STORE_ENGINES[0]!, 'listing-order-keys');
    stores.push(s);
    await seed(s, 'reverse');
    // event_seq, then created_at, then id.
    expect((await s.messages.listForSession('s-a')).map((m) => m.id)).toEqual(['m1-s-a', 'm0-s-a', 'm2-s-a', 'm3-s-a']);
    // event_seq (one submit), then the order answered.
    expect((await s.surveyAnswers.listForSession('s-a')).map((a) => a.itemId)).toEqual(['q2', 'q1', 'q3', 'q9', 'q0']);
    // created_at, then id.
    expect((await s.sessions.listByStudy(STUDY)).map((x) => x.id)).toEqual(['s-d', 's-a', 's-b', 's-c']);
    expect((await s.uploads.listForSession('s-a')).map((u) => u.id)).toEqual(['u-1-s-a', 'u-2-s-a', 'u-3-s-a']);
    expect(await s.withdrawals.findSessionIds(STUDY, 'PU1')).toEqual(['s-a', 's-b', 's-c']);
    // Newest first, then id.
    expect((await s.adminQueries.monitorRows(STUDY, 0)).map((x) => x.sessionId)).toEqual(['s-a', 's-b', 's-c', 's-d']);
    expect(Object.keys((await s.audit.counts()).byAction)).toEqual(['approve', 'export', 'judge', 'login']);
  });
});

/**
 * The pre-registration listings (lib/storage/sql/preregistrations.ts), in a block of their own: versions, the
 * deviations (with ties on detected_at) and the per-condition counts, from the store and from the export snapshot.
 * A deviation's id numbers its insertion (the id `prereg justify` names), so it is left out of the comparison.
 */
describe('listing order: pre-registrations', () => {
  const plan = {
    title: 'p', hypotheses: [{ id: 'h1', text: 'a beats b' }],
    primary: { hypothesis: 'h1', outcome: 'quality', comparison: { a: 'c1', b: 'c2', direction: 'greater', test: 'mann_whitney', alpha: 0.05 } },
    secondary: [], sample: { n_per_condition: 1, rationale: 'r' }, stopping_rule: { n_per_condition: 1 },
    exclusions: { pilot: true, integrity_flags: [], failed_attention_check: false, unscored: true },
    analysis: { lambda: 0.5, cost: 'weighted', bootstrap: { replicates: 10, seed: 1 }, judge: { model: 'm', samples: 1, rubric: 'r' } },
  } as const;
  const version = (v: number) => ({
    studyId: STUDY, version: v, planHash: `p${v}`, studyHash: `s${v}`, lockedAt: 10 * v, lockedBy: 'researcher',
    document: { study_id: STUDY, version: v, locked_at: new Date(10 * v).toISOString(), locked_at_ms: 10 * v, locked_by: 'researcher', plan_file: 'p.yaml', plan_hash: `p${v}`, study_hash: `s${v}`, plan: structuredClone(plan) as never, fingerprint: [] },
  });
  // Ties on detected_at (50) across versions, kinds, files and fields; one older.
  const DEVIATIONS = [
    { version: 2, kind: 'changed_after_lock', file: 'studies/a.yaml', field: 'title' },
    { version: 1, kind: 'sample_beyond_stopping_rule', file: 'p.yaml', field: 'stopping_rule.n_per_condition.c2' },
    { version: 1, kind: 'changed_after_lock', file: 'studies/a.yaml', field: 'title' },
    { version: 1, kind: 'changed_after_lock', file: 'studies/a.yaml', field: 'conditions.0.model' },
    { version: 1, kind: 'analysis_settings', file: 'p.yaml', field: 'analysis.lambda', at: 40 },
  ] as const;

  async function seedPrereg(s: Store, order: Order): Promise<void> {
    await s.studies.upsertLoaded(STUDY, 'Study', 'hash', 'live', 1);
    await each(SESSIONS, order, (x) => s.sessions.insert({ ...x, studyId: STUDY }));
    await each(SESSION_IDS, order, (id) => s.sessions.update(id, { step: 'workspace', consentedAt: 20 }, 20));
    // Versions number themselves 1, 2, … (each must follow the latest): inserted in that order everywhere.
    for (const v of [1, 2]) await s.preregistrations.insertVersion(version(v));
    await each(DEVIATIONS, order, (d) =>
      s.preregistrations.recordDeviation({ studyId: STUDY, version: d.version, kind: d.kind, file: d.file, field: d.field, message: `${d.field} m`, detectedAt: 'at' in d ? d.at : 50 }),
    );
  }

  const withoutIds = (rows: readonly { id: number }[]) => rows.map(({ id: _id, ...rest }) => rest);

  async function preregListings(s: Store): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {
      'preregistrations.versions': await s.preregistrations.versions(STUDY),
      'preregistrations.latest': [await s.preregistrations.latest(STUDY)],
      'preregistrations.deviations': withoutIds(await s.preregistrations.deviations(STUDY)),
      'preregistrations.countSessionsByCondition': Object.entries(await s.preregistrations.countSessionsByCondition(STUDY)),
      'preregistrations.countConsentedInCondition': [await s.preregistrations.countConsentedInCondition(STUDY, 'c2', 10), await s.preregistrations.countConsentedInCondition(STUDY, 'c2', 1)],
      'preregistrations.countSessionsCreatedAfter': [await s.preregistrations.countSessionsCreatedAfter(STUDY, 7)],
    };
    const snapshot = await s.openExportSnapshot();
    try {
      out['export.preregistrations.versions'] = await snapshot.preregistrations.versions(STUDY);
      out['export.preregistrations.deviations'] = withoutIds(await snapshot.preregistrations.deviations(STUDY));
    } finally {
      await snapshot.close();
    }
    return out;
  }

  it('is the same on every engine and whatever order the rows were inserted in', async () => {
    const answers: { engine: StoreEngine; order: Order; listed: Record<string, unknown> }[] = [];
    for (const engine of STORE_ENGINES) {
      for (const order of ['forward', 'reverse'] as const) {
        const s = await openTestStore(engine, `listing-order-prereg-${order}`);
        stores.push(s);
        await seedPrereg(s, order);
        answers.push({ engine, order, listed: await preregListings(s) });
      }
    }
    const [reference, ...others] = answers;
    for (const [name, rows] of Object.entries(reference!.listed)) expect((rows as unknown[]).length, name).toBeGreaterThan(0);
    for (const other of others)
      for (const name of Object.keys(reference!.listed))
        expect(other.listed[name], `${name}: ${other.engine} ${other.order} vs ${reference!.engine} ${reference!.order}`).toEqual(reference!.listed[name]);
    // Oldest first, then version, kind, file, field.
    expect((reference!.listed['preregistrations.deviations'] as { version: number; field: string }[]).map((d) => `${d.version} ${d.field}`)).toEqual([
      '1 analysis.lambda',
      '1 conditions.0.model',
      '1 title',
      '1 stopping_rule.n_per_condition.c2',
      '2 title',
    ]);
    expect(reference!.listed['preregistrations.countSessionsByCondition']).toEqual([['c1', 1], ['c2', 2]]);
    // Capped: "are there n yet?" reads at most n rows.
    expect(reference!.listed['preregistrations.countConsentedInCondition']).toEqual([2, 1]);
  }, 120_000);
});

// ---- Group sessions (migrations 028, 029): every group listing, both engines, rows inserted in two orders. ----
// What insertion numbers by design (a lobby's arrival_seq, group_events.id, group_seq, the document's seq) is appended
// in one order everywhere; the lobbies, groups and seats are reversed.

const GROUP_STUDY = 'study-g';
const GROUP_SESSIONS = ['g-c', 'g-a', 'g-e', 'g-b', 'g-d', 'g-f'];
// Two lobbies (conditions c1, c2) whose people joined at the same ms (ties on joined_at across lobbies).
const LOBBIES: Record<string, string[]> = { c2: ['g-c', 'g-a', 'g-f'], c1: ['g-e', 'g-b', 'g-d'] };
// Two groups formed at the same ms (ties on formed_at), ids sorting against the insertion order.
const GROUPS = [
  { id: 'grp-b', conditionId: 'c2', people: ['g-c', 'g-a'] },
  { id: 'grp-a', conditionId: 'c1', people: ['g-e', 'g-b'] },
];

async function seedGroups(s: Store, order: Order): Promise<void> {
  await s.studies.upsertLoaded(GROUP_STUDY, 'Group study', 'hash', 'live', 1);
  await each(GROUP_SESSIONS, order, (id) => s.sessions.insert({ id, studyId: GROUP_STUDY, taskId: 't1', conditionId: 'c1', isPilot: false, createdAt: 10 }));
  for (const [conditionId, people] of inOrder(Object.entries(LOBBIES), order)) {
    await s.transaction(async (tx) => {
      await tx.groups.lockLobby(`${GROUP_STUDY}/${conditionId}/t1`);
      for (const sessionId of people)
        await tx.groups.joinLobby({ sessionId, studyId: GROUP_STUDY, conditionId, taskId: 't1', quotaValue: null, joinedAt: 20, deadlineAt: 50 });
    });
  }
  await each(GROUPS, order, (g) =>
    s.groups.createGroup({ id: g.id, studyId: GROUP_STUDY, conditionId: g.conditionId, taskId: 't1', sizeAtStart: 2, agents: ['Facilitator'], formedAt: 30 }),
  );
  for (const g of inOrder(GROUPS, order)) {
    const seats = [...g.people.map((sessionId, i) => ({ seat: i + 1, kind: 'participant' as const, sessionId, displayName: `Member ${i + 1}` })), { seat: 3, kind: 'agent' as const, sessionId: null, displayName: 'Facilitator' }];
    await each(seats, order, (m) => s.groups.addMember({ groupId: g.id, ...m, status: 'present', joinedAt: 30 }));
    await s.groups.settleLobby(g.people, 'grouped', 30, g.id);
  }
  // Appended in one order everywhere: the group's trajectory, room and document are numbered by insertion.
  for (const g of GROUPS) {
    for (const sessionId of g.people) await s.groups.appendEvent({ studyId: GROUP_STUDY, groupId: g.id, sessionId, type: 'grouped', serverTs: 30, payload: { wait_ms: 10 } });
    await s.groups.appendEvent({ studyId: GROUP_STUDY, groupId: g.id, sessionId: null, type: 'ended', serverTs: 30, payload: {} });
    for (const [i, sessionId] of g.people.entries()) {
      await s.groups.appendMessage({ id: `gm-${g.id}-${i}`, groupId: g.id, senderKind: 'participant', sessionId, senderName: `Member ${i + 1}`, clientId: `c-${i}`, content: 'hi', tokens: 1, createdAt: 40 });
      await s.groups.appendDocUpdate({ groupId: g.id, sessionId, fieldId: 'plan', update: 'AAA=', createdAt: 40 });
    }
  }
  await s.groups.appendEvent({ studyId: GROUP_STUDY, groupId: null, sessionId: 'g-f', type: 'lobby_joined', serverTs: 20, payload: {} });
}

async function groupListings(s: Store): Promise<Record<string, unknown>> {
  const perGroup = <T>(fn: (id: string) => Promise<T>) => Promise.all(GROUPS.map((g) => fn(g.id)));
  const out: Record<string, unknown> = {
    'groups.listWaiting': await Promise.all(Object.keys(LOBBIES).map((c) => s.groups.listWaiting(GROUP_STUDY, c, 't1'))),
    'groups.listDueLobby': await s.groups.listDueLobby(100),
    'groups.listLobbyEntries': await s.groups.listLobbyEntries(GROUP_STUDY),
    'groups.listGroups': await s.groups.listGroups(GROUP_STUDY),
    'groups.listActiveGroups': await s.groups.listActiveGroups(),
    'groups.listMembers': await perGroup((id) => s.groups.listMembers(id)),
    'groups.listEvents': await s.groups.listEvents(GROUP_STUDY),
    'groups.listGroupEvents': await perGroup((id) => s.groups.listGroupEvents(id)),
    'groups.listMessages': await perGroup((id) => s.groups.listMessages(id)),
    'groups.listMessages after 1': await perGroup((id) => s.groups.listMessages(id, 1)),
    'groups.listDocUpdates': await perGroup((id) => s.groups.listDocUpdates(id)),
  };
  const snapshot = await s.openExportSnapshot();
  try {
    out['export.groups.listGroups'] = await snapshot.groups.listGroups(GROUP_STUDY);
    out['export.groups.listMembers'] = await Promise.all(GROUPS.map((g) => snapshot.groups.listMembers(g.id)));
    out['export.groups.listEvents'] = await snapshot.groups.listEvents(GROUP_STUDY);
    out['export.groups.listMessages'] = await Promise.all(GROUPS.map((g) => snapshot.groups.listMessages(g.id)));
    out['export.groups.listLobbyEntries'] = await snapshot.groups.listLobbyEntries(GROUP_STUDY);
  } finally {
    await snapshot.close();
  }
  return out;
}

describe('group listing order', () => {
  it('is the same on every engine and whatever order the lobbies, groups and seats were inserted in', async () => {
    const answers: { engine: StoreEngine; order: Order; listed: Record<string, unknown> }[] = [];
    for (const engine of STORE_ENGINES) {
      for (const order of ['forward', 'reverse'] as const) {
        const s = await openTestStore(engine, `group-listing-order-${order}`);
        stores.push(s);
        await seedGroups(s, order);
        answers.push({ engine, order, listed: await groupListings(s) });
      }
    }
    const [reference, ...others] = answers;
    for (const [name, rows] of Object.entries(reference!.listed)) expect((rows as unknown[]).flat().length, name).toBeGreaterThan(0);
    for (const other of others) {
      for (const name of Object.keys(reference!.listed)) {
        expect(other.listed[name], `${name}: ${other.engine} ${other.order} vs ${reference!.engine} ${reference!.order}`).toEqual(reference!.listed[name]);
      }
    }
    // The documented keys: groups by formed_at then id; lobby entries by joined_at, condition, task, arrival.
    const listed = reference!.listed;
    expect((listed['groups.listGroups'] as { id: string }[]).map((g) => g.id)).toEqual(['grp-a', 'grp-b']);
    expect((listed['groups.listLobbyEntries'] as { sessionId: string }[]).map((e) => e.sessionId)).toEqual(['g-e', 'g-b', 'g-d', 'g-c', 'g-a', 'g-f']);
    expect((listed['groups.listWaiting'] as { sessionId: string }[][]).map((l) => l.map((e) => e.sessionId))).toEqual([['g-f'], ['g-d']]);
  }, 120_000);
});
