import { describe, expect, it } from 'vitest';
import {
  adminClientEvents,
  adminServerPushes,
  ExportRequest,
  JudgeRunRequest,
  LoginRequest,
  MonitorSubscribe,
  MonitorUnsubscribe,
  RunsStatus,
  SessionDetail,
  StatusChangeRequest,
  StudySummaryList,
  WithdrawRequest,
} from './admin';
import { Envelope, failFromZod } from './envelope';

const detail = {
  session: {
    id: 's-1',
    studyId: 'visualization',
    taskId: 'study-habits',
    conditionId: 'baseline',
    step: 'survey',
    status: 'active',
    isPilot: false,
    createdAt: 1,
    consentedAt: 2,
    submittedAt: 3,
    endedAt: null,
  },
  transcript: [{ id: 'm1', role: 'user', text: '<script>x</script>', status: 'complete', createdAt: 2, tokens: 5, model: null, ttftMs: null, durationMs: null }],
  timeline: [{ seq: 1, type: 'step.changed', serverTs: 2, clientTs: null, payload: { to: 'instructions' } }],
  artifactVersions: [{ version: 1, fields: { hypothesis: 'h' }, submittedAt: 3 }],
  uploads: [],
  survey: [{ itemId: 'confidence', kind: 'likert', value: 4 }, { itemId: 'comments', kind: 'text', value: null }],
  judge: { quality: 3, samples: [{ artifactVersion: 1, rubricId: 'r', model: 'm', sample: 0, score: 3, parseOk: true }] },
  pz: -0.5,
};

describe('admin HTTP schemas', () => {
  it('validate request bodies strictly and name the offending field', () => {
    expect(LoginRequest.safeParse({ password: 'x' }).success).toBe(true);
    expect(LoginRequest.safeParse({ password: '' }).success).toBe(false);
    expect(LoginRequest.safeParse({ password: 'x', admin: true }).success).toBe(false);
    const bad = StatusChangeRequest.safeParse({ status: 'open' });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(failFromZod(bad.error, 'POST status').error.field).toBe('status');
    expect(StatusChangeRequest.parse({ status: 'pilot' })).toEqual({ status: 'pilot' });
  });

  it('fills export defaults and trims the withdrawal platform id', () => {
    expect(ExportRequest.parse({})).toEqual({ includePilot: false, includeIdentities: false });
    expect(ExportRequest.safeParse({ includeIdentities: 'yes' }).success).toBe(false);
    expect(WithdrawRequest.parse({ participant: '  P-1 ' })).toEqual({ participant: 'P-1' });
    const blank = WithdrawRequest.safeParse({ participant: '   ' });
    expect(blank.success).toBe(false);
    if (!blank.success) expect(blank.error.issues[0]?.message).toMatch(/platform id/);
  });

  it('starts a judge run text-only unless images are to be attached', () => {
    expect(JudgeRunRequest.parse({})).toEqual({ images: 'describe' });
    expect(JudgeRunRequest.parse({ images: 'attach' })).toEqual({ images: 'attach' });
    const bogus = JudgeRunRequest.safeParse({ images: 'bogus' });
    expect(bogus.success).toBe(false);
    if (!bogus.success) expect(failFromZod(bogus.error, 'POST judge run').error.field).toBe('images');
    expect(JudgeRunRequest.safeParse({ images: 'attach', imageDetail: 'high' }).success).toBe(false);
  });

  it('describe the replies the dashboard reads, inside the common envelope', () => {
    const reply = Envelope(SessionDetail).parse({ ok: true, data: detail });
    expect(reply.ok && reply.data.transcript[0]?.text).toBe('<script>x</script>');
    // a reply missing a field, or with an unknown session status, is refused
    expect(Envelope(SessionDetail).safeParse({ ok: true, data: { ...detail, pz: undefined } }).success).toBe(false);
    expect(Envelope(SessionDetail).safeParse({ ok: true, data: { ...detail, session: { ...detail.session, status: 'paused' } } }).success).toBe(false);
    expect(Envelope(SessionDetail).parse({ ok: false, error: { code: 'not_found', message: 'no such session' } })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'no such session' },
    });
    expect(RunsStatus.safeParse({ judge: null, analysis: null, hasReport: false, imageFields: ['Your plot (image)'] }).success).toBe(true);
    expect(RunsStatus.safeParse({ judge: null, analysis: null, hasReport: false }).success).toBe(false);
    expect(StudySummaryList.safeParse([{ id: 'x' }]).success).toBe(false);
  });
});

describe('admin socket events', () => {
  it('subscribe takes a study id only', () => {
    expect(MonitorSubscribe.parse({ studyId: 'travel-planning' })).toEqual({ studyId: 'travel-planning' });
    const bad = MonitorSubscribe.safeParse({ studyId: 'Not A Slug' });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(failFromZod(bad.error, 'monitor:subscribe').error.field).toBe('studyId');
    expect(MonitorSubscribe.safeParse({ studyId: 'x', all: true }).success).toBe(false);
    expect(MonitorUnsubscribe.safeParse({}).success).toBe(true);
    expect(MonitorUnsubscribe.safeParse('everything').success).toBe(false);
  });

  it('every client event has a payload and an ack schema; every push has a schema', () => {
    expect(Object.keys(adminClientEvents).sort()).toEqual(['monitor:subscribe', 'monitor:unsubscribe']);
    expect(Object.keys(adminServerPushes).sort()).toEqual(['export:progress', 'monitor:group', 'monitor:update', 'run:progress']);
    const snapshot = { studyId: 's', at: 5, sessions: [{ sessionId: 'a', taskId: 't', conditionId: 'c', step: 'consent', status: 'active', isPilot: false, connection: 'idle', lastActivityAt: 1, messages: 0, elapsedMs: 4, createdAt: 1 }] };
    expect(adminClientEvents['monitor:subscribe'].ack.parse(snapshot)).toEqual(snapshot);
    expect(adminServerPushes['monitor:update'].safeParse({ ...snapshot, sessions: [{ ...snapshot.sessions[0], connection: 'away' }] }).success).toBe(false);
    expect(adminServerPushes['run:progress'].safeParse({ studyId: 's', kind: 'judge', state: 'running', done: 1, total: 3, message: '1/3' }).success).toBe(true);
    expect(adminServerPushes['run:progress'].safeParse({ studyId: 's', kind: 'annotate', state: 'running', done: 1, total: 3, message: '' }).success).toBe(false);
    expect(adminServerPushes['export:progress'].safeParse({ studyId: 's', done: 1 }).success).toBe(false);
  });
});
