import { describe, expect, it } from 'vitest';
import type { SessionFacts } from '../../lib/storage';
import { costOf, enrolmentOf, funnelOf, pzBySession, timeOnTaskOf } from './sessionListDashboard';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

function facts(id: string, over: Partial<SessionFacts> = {}): SessionFacts {
  return {
    sessionId: id,
    taskId: 'task',
    conditionId: 'a',
    status: 'active',
    step: 'workspace',
    isPilot: false,
    createdAt: T0,
    consentedAt: T0 + 1000,
    submittedAt: null,
    endedAt: null,
    messages: 0,
    userTokens: 0,
    agentTokens: 0,
    quality: null,
    ...over,
  };
}

describe('dashboard numbers', () => {
  it('counts starts and ends per UTC hour, with the empty hours between', () => {
    const sessions = [
      facts('s1', { createdAt: T0 + 5 * 60_000, status: 'completed', endedAt: T0 + 70 * 60_000 }),
      facts('s2', { createdAt: T0 + 10 * 60_000, status: 'timed_out', endedAt: T0 + 3 * HOUR + 1 }),
      facts('s3', { createdAt: T0 + 3 * HOUR + 5, status: 'declined', endedAt: T0 + 3 * HOUR + 9 }),
    ];
    const { bucket, rows } = enrolmentOf(sessions);
    expect(bucket).toBe('hour');
    expect(rows).toEqual([
      { at: T0, started: 2, completed: 0, timedOut: 0, declined: 0 },
      { at: T0 + HOUR, started: 0, completed: 1, timedOut: 0, declined: 0 },
      { at: T0 + 2 * HOUR, started: 0, completed: 0, timedOut: 0, declined: 0 },
      { at: T0 + 3 * HOUR, started: 1, completed: 0, timedOut: 1, declined: 1 },
    ]);
    expect(enrolmentOf([])).toEqual({ bucket: 'hour', rows: [] });
  });

  it('counts per day when the study spans more than a week', () => {
    const { bucket, rows } = enrolmentOf([facts('a', { createdAt: T0 }), facts('b', { createdAt: T0 + 9 * 24 * HOUR })]);
    expect(bucket).toBe('day');
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.started)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });

  it('funnel: a step counts the sessions that moved to it; complete counts only completed sessions', () => {
    const sessions = [facts('done', { status: 'completed' }), facts('declined', { status: 'declined' }), facts('late', { status: 'timed_out' }), facts('new')];
    const steps = [
      ...['instructions', 'workspace', 'survey', 'complete'].map((step) => ({ sessionId: 'done', step })),
      { sessionId: 'declined', step: 'complete' },
      ...['instructions', 'workspace', 'complete'].map((step) => ({ sessionId: 'late', step })),
      { sessionId: 'other-study', step: 'workspace' },
    ];
    expect(funnelOf(sessions, steps)).toEqual([
      { step: 'consent', reached: 4 },
      { step: 'instructions', reached: 2 },
      { step: 'workspace', reached: 2 },
      { step: 'survey', reached: 1 },
      { step: 'complete', reached: 1 },
    ]);
  });

  it('cost, time on task and Pz within the task among judged non-pilot sessions', () => {
    const a = facts('a', { quality: 4, userTokens: 100, agentTokens: 200, submittedAt: T0 + 61_000 });
    const b = facts('b', { quality: 2, userTokens: 300, agentTokens: 200 });
    const pilot = facts('p', { quality: 5, isPilot: true });
    const unjudged = facts('u');
    expect(costOf(a)).toBe(200);
    expect(timeOnTaskOf(a)).toBe(60_000);
    expect(timeOnTaskOf(b)).toBeNull();
    const pz = pzBySession([a, b, pilot, unjudged]);
    // Two values: z = ±1/√2 each (sample SD); Q: a high, C: a low → Pz(a) = 1/√2 + 1/√2 = √2.
    expect(pz.get('a')).toBeCloseTo(Math.SQRT2, 12);
    expect(pz.get('b')).toBeCloseTo(-Math.SQRT2, 12);
    expect(pz.has('p')).toBe(false);
    expect(pz.has('u')).toBe(false);
  });
});
