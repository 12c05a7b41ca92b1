import crypto from 'node:crypto';
import type { Step } from '../../common/session';
import type { CompletionOutcome } from '../../common/study';
import type { ConsentRespond, StepAdvance } from '../../common/events';
import { deadlineOf, loadSession, ServiceError, type ServiceContext, type SessionContext } from './context';

export const STEP_ORDER: readonly Step[] = ['consent', 'instructions', 'workspace', 'survey', 'complete'];

const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

/** Writes a step change event and the session's new step (inside the caller's transaction). */
export function changeStep(ctx: ServiceContext, s: SessionContext, to: Step, now: number, clientTs: number | null = null): void {
  ctx.store.events.append(s.session.id, 'step.changed', { from: s.session.step, to }, now, clientTs);
  s.session = ctx.store.sessions.update(s.session.id, { step: to }, now);
}

/** Ends the session with an outcome: status, step complete, completion event with the code (inside a transaction). */
export function endSession(ctx: ServiceContext, s: SessionContext, outcome: CompletionOutcome, now: number): void {
  if (s.session.step !== 'complete') changeStep(ctx, s, 'complete', now);
  const status = outcome === 'completed' ? 'completed' : outcome;
  ctx.store.events.append(s.session.id, 'session.completed', { outcome, code: s.study.completion.codes[outcome] }, now, null);
  s.session = ctx.store.sessions.update(s.session.id, { status, endedAt: now }, now);
}

/**
 * Applies the time limit: an active session still working (instructions or workspace) past its deadline
 * ends as timed_out. Returns true when it changed the session. Sessions already in the survey may finish.
 */
export function expireIfDue(ctx: ServiceContext, s: SessionContext): boolean {
  const deadline = deadlineOf(s);
  const now = ctx.now();
  if (s.session.status !== 'active' || deadline === null || now < deadline) return false;
  if (s.session.step !== 'instructions' && s.session.step !== 'workspace') return false;
  ctx.store.transaction(() => {
    ctx.store.events.append(s.session.id, 'session.timed_out', { deadline }, now, null);
    endSession(ctx, s, 'timed_out', now);
  });
  ctx.log.info({ sessionId: s.session.id }, 'session timed out');
  return true;
}

/**
 * Active sessions still working (instructions or workspace) whose time limit has passed at `now`, for the
 * server-side sweep. Sessions of studies no longer configured are skipped (nothing to apply).
 */
export function overdueSessions(ctx: ServiceContext, now: number): SessionContext[] {
  let shortestLimitMs = Number.POSITIVE_INFINITY;
  for (const study of ctx.config.studies.values()) shortestLimitMs = Math.min(shortestLimitMs, study.time_limit_minutes * 60_000);
  if (!Number.isFinite(shortestLimitMs)) return [];
  const due: SessionContext[] = [];
  // deadline = consentedAt + limit <= now  ⇔  consentedAt <= now − limit (shortest limit: a superset, filtered below).
  for (const row of ctx.store.sessions.listActiveConsentedBefore(now - shortestLimitMs + 1)) {
    if (row.step !== 'instructions' && row.step !== 'workspace') continue;
    let s: SessionContext;
    try {
      s = loadSession(ctx, row.id);
    } catch {
      continue;
    }
    const deadline = deadlineOf(s);
    if (deadline !== null && now >= deadline) due.push(s);
  }
  return due;
}

/** Loads the session, applies the time limit, and requires it to be active (and optionally at one of `steps`). */
export function requireActive(ctx: ServiceContext, sessionId: string, steps?: Step[]): SessionContext {
  const s = loadSession(ctx, sessionId);
  expireIfDue(ctx, s);
  if (s.session.status !== 'active') throw new ServiceError('session_over', `this session has ended (${s.session.status})`);
  if (steps && !steps.includes(s.session.step))
    throw new ServiceError('wrong_step', `not possible at step "${s.session.step}" (needs ${steps.join(' or ')})`);
  return s;
}

export function respondConsent(ctx: ServiceContext, sessionId: string, p: ConsentRespond): void {
  const s = loadSession(ctx, sessionId);
  // A repeated answer (double click, resend after reconnect) changes nothing.
  if (s.session.step !== 'consent') return;
  if (s.session.status !== 'active') throw new ServiceError('session_over', 'this session has ended');
  if (p.version !== s.study.consent.version)
    throw new ServiceError('conflict', `the consent text has changed (now version ${s.study.consent.version}); please reload`, 'version');
  const now = ctx.now();
  const payload = { version: s.study.consent.version, textHash: sha256(s.study.consent.text) };
  ctx.store.transaction(() => {
    if (p.accept) {
      ctx.store.events.append(sessionId, 'consent.accepted', payload, now, p.clientTs);
      s.session = ctx.store.sessions.update(sessionId, { consentVersion: payload.version, consentedAt: now }, now);
      changeStep(ctx, s, 'instructions', now, p.clientTs);
    } else {
      ctx.store.events.append(sessionId, 'consent.declined', payload, now, p.clientTs);
      s.session = ctx.store.sessions.update(sessionId, { consentVersion: payload.version }, now);
      endSession(ctx, s, 'declined', now);
    }
  });
}

/**
 * Moves on from `from`. Only the instructions step advances this way (the workspace ends with artifact:submit,
 * the survey with survey:submit). Idempotent: if the session is already past `from`, nothing happens.
 */
export function advanceStep(ctx: ServiceContext, sessionId: string, p: StepAdvance): void {
  const current = loadSession(ctx, sessionId).session.step;
  if (STEP_ORDER.indexOf(current) > STEP_ORDER.indexOf(p.from)) return;
  if (current !== p.from) throw new ServiceError('wrong_step', `the session is at "${current}", not "${p.from}"`, 'from');
  if (p.from !== 'instructions')
    throw new ServiceError('wrong_step', `step "${p.from}" ends with ${p.from === 'consent' ? 'consent:respond' : p.from === 'workspace' ? 'artifact:submit' : 'survey:submit'}`, 'from');
  const s = requireActive(ctx, sessionId, ['instructions']);
  const now = ctx.now();
  ctx.store.transaction(() => changeStep(ctx, s, 'workspace', now, p.clientTs));
}
