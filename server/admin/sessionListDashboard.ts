import { zScores } from '../../lib/stats';
import type { DashboardData, PilotFilter } from '../../common/adminSessionList';
import { SessionStatus, Step } from '../../common/session';
import { SESSION_COST_LAMBDA, type SessionFacts } from '../../lib/storage';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Beyond a week of hours the enrolment plot counts per day (at most a few hundred bars either way). */
const HOURLY_SPAN_LIMIT_MS = 7 * DAY_MS;

export const costOf = (s: Pick<SessionFacts, 'userTokens' | 'agentTokens'>): number => s.userTokens + SESSION_COST_LAMBDA * s.agentTokens;

export const timeOnTaskOf = (s: Pick<SessionFacts, 'submittedAt' | 'consentedAt' | 'createdAt'>): number | null =>
  s.submittedAt === null ? null : s.submittedAt - (s.consentedAt ?? s.createdAt);

/** Sessions started, completed, timed out and declined per hour (or day), with the empty buckets between. */
export function enrolmentOf(sessions: SessionFacts[]): DashboardData['enrolment'] {
  const times = sessions.flatMap((s) => [s.createdAt, ...(s.endedAt === null ? [] : [s.endedAt])]);
  if (times.length === 0) return { bucket: 'hour', rows: [] };
  const first = Math.min(...times);
  const last = Math.max(...times);
  const bucket = last - first > HOURLY_SPAN_LIMIT_MS ? 'day' : 'hour';
  const size = bucket === 'day' ? DAY_MS : HOUR_MS;
  const floor = (t: number) => Math.floor(t / size) * size;
  const rows = new Map<number, DashboardData['enrolment']['rows'][number]>();
  for (let at = floor(first); at <= floor(last); at += size) rows.set(at, { at, started: 0, completed: 0, timedOut: 0, declined: 0 });
  for (const s of sessions) {
    rows.get(floor(s.createdAt))!.started++;
    if (s.endedAt === null) continue;
    const row = rows.get(floor(s.endedAt))!;
    if (s.status === 'completed') row.completed++;
    else if (s.status === 'timed_out') row.timedOut++;
    else if (s.status === 'declined') row.declined++;
  }
  return { bucket, rows: [...rows.values()] };
}

/** How many sessions reached each step; "complete" counts only sessions that completed (not declined or timed out). */
export function funnelOf(sessions: SessionFacts[], stepsReached: { sessionId: string; step: string }[]): DashboardData['funnel'] {
  const ids = new Set(sessions.map((s) => s.sessionId));
  const completed = new Set(sessions.filter((s) => s.status === 'completed').map((s) => s.sessionId));
  const reached = new Map<string, Set<string>>(Step.options.map((step) => [step, new Set<string>()]));
  for (const s of sessions) reached.get('consent')!.add(s.sessionId);
  for (const r of stepsReached) {
    if (!ids.has(r.sessionId) || r.step === 'consent') continue;
    if (r.step === 'complete' && !completed.has(r.sessionId)) continue;
    reached.get(r.step)?.add(r.sessionId);
  }
  return Step.options.map((step) => ({ step, reached: reached.get(step)!.size }));
}

/** Pz = z(Q) − z(C) within each task among its judged non-pilot sessions (sample SD; SD 0 → z 0). */
export function pzBySession(sessions: SessionFacts[]): Map<string, number> {
  const byTask = new Map<string, SessionFacts[]>();
  for (const s of sessions) {
    if (s.isPilot || s.quality === null) continue;
    // push, not a copy per session: copying made this quadratic (seconds at 10k sessions of one task).
    const judged = byTask.get(s.taskId);
    if (judged) judged.push(s);
    else byTask.set(s.taskId, [s]);
  }
  const pz = new Map<string, number>();
  for (const judged of byTask.values()) {
    const zq = zScores(judged.map((s) => s.quality!));
    const zc = zScores(judged.map(costOf));
    judged.forEach((s, i) => pz.set(s.sessionId, zq[i]! - zc[i]!));
  }
  return pz;
}

/** The numbers behind every dashboard plot, from the study's sessions (already filtered for pilot). */
export function dashboardData(
  studyId: string,
  pilot: PilotFilter,
  at: number,
  sessions: SessionFacts[],
  stepsReached: { sessionId: string; step: string }[],
): DashboardData {
  const counts = new Map<string, { conditionId: string; status: SessionStatus; n: number }>();
  // One zod parse per session (not two): at 10k sessions the parses were a visible part of the work.
  const statusOf = new Map(sessions.map((s) => [s, SessionStatus.parse(s.status)]));
  for (const s of sessions) {
    const status = statusOf.get(s)!;
    const key = `${s.conditionId}\u0000${status}`;
    const entry = counts.get(key) ?? { conditionId: s.conditionId, status, n: 0 };
    entry.n++;
    counts.set(key, entry);
  }
  const pz = pzBySession(sessions);
  return {
    studyId,
    at,
    pilot,
    enrolment: enrolmentOf(sessions),
    conditions: [...counts.values()].sort((a, b) => (a.conditionId < b.conditionId ? -1 : a.conditionId > b.conditionId ? 1 : a.status < b.status ? -1 : 1)),
    funnel: funnelOf(sessions, stepsReached),
    sessions: sessions.map((s) => ({
      conditionId: s.conditionId,
      taskId: s.taskId,
      status: statusOf.get(s)!,
      timeOnTaskMs: timeOnTaskOf(s),
      cost: costOf(s),
      quality: s.quality,
      pz: pz.get(s.sessionId) ?? null,
    })),
  };
}
