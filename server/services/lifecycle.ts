import crypto from 'node:crypto';
import type { Step } from '../../common/session';
import type { CompletionOutcome } from '../../common/study';
import type { ConsentRespond, StepAdvance } from '../../common/events';
import type { SessionChangeEvent, SessionChangeFrom, SessionPatch, SessionRow, Store, StoreRepositories, StoreTx, SurveyAnswerInput } from '../../lib/storage';
import { deadlineOf, loadSession, ServiceError, type ServiceContext, type SessionContext } from './serviceContext';
import { recordPendingDraft } from './pendingDraft';
import { sessionDefinitions } from './knownSessions';

export const STEP_ORDER: readonly Step[] = ['consent', 'instructions', 'workspace', 'survey', 'complete'];

const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

/** The trajectory event of a step change. */
export const stepChanged = (from: Step, to: Step, clientTs: number | null): SessionChangeEvent => ({ type: 'step.changed', payload: { from, to }, clientTs });

/** A state change's events and patch (SessionsRepo.change): what a step change and endSession record. */
interface StateChange {
  events: SessionChangeEvent[];
  patch: SessionPatch;
}

/** To step `to`: `before` (events the change records first), then `step.changed`; the step set with `also`. */
function stepChange(s: SessionContext, to: Step, clientTs: number | null, also: SessionPatch = {}, before: readonly SessionChangeEvent[] = []): StateChange {
  return { events: [...before, stepChanged(s.session.step, to, clientTs)], patch: { ...also, step: to } };
}

/** Makes `change` in one store call (SessionsRepo.change) and keeps the new row in `s`; returns the events' seqs. */
async function applyChange(tx: StoreRepositories, s: SessionContext, change: StateChange, now: number): Promise<number[]> {
  const changed = await tx.sessions.change(s.session.id, change.events, change.patch, now);
  s.session = changed.session;
  return changed.seqs;
}

/** What else an ending records (endSession). */
export interface EndingDetails {
  /** A group lobby's release, whose code and reason the completion event carries instead. */
  release?: { code: string; reason: string };
  /** Events recorded first (the survey's answers, a time-out, a declined consent). */
  before?: readonly SessionChangeEvent[];
  /** Other columns the ending sets. */
  also?: SessionPatch;
}

/** An ending with `outcome`: status, step complete, the completion event with the code (endSession). */
function ending(s: SessionContext, outcome: CompletionOutcome, now: number, details: EndingDetails = {}): StateChange {
  const events: SessionChangeEvent[] = [...(details.before ?? [])];
  const patch: SessionPatch = { ...details.also, status: outcome === 'completed' ? 'completed' : outcome, endedAt: now };
  if (s.session.step !== 'complete') {
    events.push(stepChanged(s.session.step, 'complete', null));
    patch.step = 'complete';
  }
  events.push({ type: 'session.completed', payload: { outcome, code: s.study.completion.codes[outcome], ...details.release }, clientTs: null });
  return { events, patch };
}

/**
 * Ends the session with an outcome: status, step complete, completion event with the code, in one store call
 * inside the caller's transaction. Returns the seqs of the events, `before`'s first.
 */
export async function endSession(tx: StoreRepositories, s: SessionContext, outcome: CompletionOutcome, now: number, details: EndingDetails = {}): Promise<number[]> {
  return applyChange(tx, s, ending(s, outcome, now, details), now);
}

/**
 * A state change made only while the session is still at the step and status `s` was read at
 * (SessionsRepo.changeFrom), through `db`: the store (no transaction around it) or a transaction's tx. Returns the
 * events' seqs, or null when another socket, node or the sweep changed the session first. Either way `s` then holds
 * the row as it is.
 */
async function changeFromRead(db: StoreRepositories, s: SessionContext, change: StateChange, now: number): Promise<number[] | null> {
  return settled(s, await db.sessions.changeFrom(s.session.id, atRead(s), change.events, change.patch, now));
}

const atRead = (s: SessionContext) => ({ step: s.session.step, status: s.session.status });

/** A compare-and-set's outcome: `s` gets the row as it is; the events' seqs, or null when it was not made. */
function settled(s: SessionContext, outcome: SessionChangeFrom | undefined): number[] | null {
  // Withdrawn meanwhile.
  if (!outcome) throw new ServiceError('not_found', 'session not found');
  s.session = outcome.session;
  return outcome.changed ? outcome.seqs : null;
}

/**
 * The survey's ending (endSession as a compare-and-set on the step and status `s` was read at) with its answers
 * stored by the same call (Store.submitSurvey: on PostgreSQL one round trip), at the seq of the ending's first event:
 * null, and nothing written, when another socket, node or the sweep moved the session on first.
 */
export async function endSessionWithAnswers(
  store: Store,
  s: SessionContext,
  now: number,
  details: EndingDetails,
  answers: readonly SurveyAnswerInput[],
): Promise<number[] | null> {
  const change = ending(s, 'completed', now, details);
  return settled(s, await store.submitSurvey({ sessionId: s.session.id, from: atRead(s), events: change.events, patch: change.patch, now, answers }));
}

/** Thrown where a compare-and-set state change lost, yet the row it found would have allowed it (not expected). */
export const raced = () => new ServiceError('conflict', 'the session changed while this was being saved; please try again');

/** Whether the session is active, still working (instructions or workspace) and past its deadline at `now`. */
function isDue(s: SessionContext, now: number): boolean {
  const deadline = deadlineOf(s);
  if (s.session.status !== 'active' || deadline === null || now < deadline) return false;
  return s.session.step === 'instructions' || s.session.step === 'workspace';
}

/**
 * Applies the time limit: an active session still working (instructions or workspace) past its deadline
 * ends as timed_out. Returns true when it changed the session (then `s` holds the new row). Sessions
 * already in the survey may finish. The decision is re-made on the locked row inside the transaction,
 * so the sweep and a participant's action (or two nodes) never both time a session out.
 */
export async function expireIfDue(ctx: ServiceContext, s: SessionContext): Promise<boolean> {
  const now = ctx.now();
  if (!isDue(s, now)) return false;
  const changed = await ctx.store.transaction(async (tx) => {
    const locked = await loadSession(ctx, s.session.id, tx, true);
    if (!isDue(locked, now)) {
      s.session = locked.session;
      return false;
    }
    if (locked.session.step === 'workspace') await recordPendingDraft(tx, locked.session.id, now);
    await endSession(tx, locked, 'timed_out', now, { before: [{ type: 'session.timed_out', payload: { deadline: deadlineOf(locked) }, clientTs: null }] });
    s.session = locked.session;
    return true;
  });
  if (changed) ctx.log.info({ sessionId: s.session.id }, 'session timed out');
  return changed;
}

/**
 * Active sessions still working (instructions or workspace) whose time limit has passed at `now`, for the
 * server-side sweep. Sessions of studies no longer configured are skipped (nothing to apply).
 */
export async function overdueSessions(ctx: ServiceContext, now: number): Promise<SessionContext[]> {
  let shortestLimitMs = Number.POSITIVE_INFINITY;
  for (const study of ctx.config.studies.values()) shortestLimitMs = Math.min(shortestLimitMs, study.time_limit_minutes * 60_000);
  if (!Number.isFinite(shortestLimitMs)) return [];
  const due: SessionContext[] = [];
  // deadline = consentedAt + limit <= now  ⇔  consentedAt <= now − limit (shortest limit: a superset, filtered below).
  for (const row of await ctx.store.sessions.listActiveConsentedBefore(now - shortestLimitMs + 1)) {
    if (row.step !== 'instructions' && row.step !== 'workspace') continue;
    let s: SessionContext;
    try {
      s = await loadSession(ctx, row.id);
    } catch {
      continue;
    }
    const deadline = deadlineOf(s);
    if (deadline !== null && now >= deadline) due.push(s);
  }
  return due;
}

/** Throws session_over or wrong_step unless the session is active (at one of `steps`). */
export function checkActive(s: SessionContext, steps?: Step[]): SessionContext {
  if (s.session.status !== 'active') throw new ServiceError('session_over', `this session has ended (${s.session.status})`);
  if (steps && !steps.includes(s.session.step))
    throw new ServiceError('wrong_step', `not possible at step "${s.session.step}" (needs ${steps.join(' or ')})`);
  return s;
}

/** Loads the session, applies the time limit, and requires it to be active (and optionally at one of `steps`). */
export async function requireActive(ctx: ServiceContext, sessionId: string, steps?: Step[]): Promise<SessionContext> {
  const s = await loadSession(ctx, sessionId);
  await expireIfDue(ctx, s);
  return checkActive(s, steps);
}

/**
 * The participant's error for a one-call store write (a chat message, an autosave) the store refused because the
 * session is over, past its time or at another step than `step`: records a time-out first (as requireActive does).
 * `s` holds the session row the store answered with. Always throws.
 */
export async function refuseInactive(ctx: ServiceContext, s: SessionContext, reason: 'overdue' | 'ended' | 'wrong_step', step: Step, what: string): Promise<never> {
  if (reason === 'overdue') {
    await requireActive(ctx, s.session.id, [step]);
    throw new ServiceError('session_over', 'this session has ended (timed_out)');
  }
  checkActive(s, [step]);
  throw new ServiceError('internal', `the store refused the ${what} (${reason}) but the session is active at the ${step}`);
}

/**
 * The same check inside a state change's transaction, on the locked row: what requireActive found may have
 * changed meanwhile (another socket, node or the sweep). Past its deadline the session counts as over (the
 * time-out itself is recorded by requireActive before the transaction, or by the sweep).
 */
export async function requireActiveIn(ctx: ServiceContext, tx: StoreTx, sessionId: string, steps?: Step[]): Promise<SessionContext> {
  const s = await loadSession(ctx, sessionId, tx, true);
  if (isDue(s, ctx.now())) throw new ServiceError('session_over', 'this session has ended (timed_out)');
  return checkActive(s, steps);
}

/**
 * Records a consent answer. Returns the row this call moved on (to the instructions, or ended as declined), or null when
 * it changed nothing (a repeat).
 */
export async function respondConsent(ctx: ServiceContext, sessionId: string, p: ConsentRespond): Promise<SessionRow | null> {
  // Whether the answer is still to be recorded: a repeated one (double click, resend after reconnect) changes nothing.
  const pending = (s: SessionContext): boolean => {
    if (s.session.step !== 'consent') return false;
    if (s.session.status !== 'active') throw new ServiceError('session_over', 'this session has ended');
    if (p.version !== s.study.consent.version)
      throw new ServiceError('conflict', `the consent text has changed (now version ${s.study.consent.version}); please reload`, 'version');
    return true;
  };
  const s = await consentContext(ctx, sessionId, p);
  if (!pending(s)) return null;
  const now = ctx.now();
  const payload = { version: s.study.consent.version, textHash: sha256(s.study.consent.text) };
  const answer: SessionChangeEvent = { type: p.accept ? 'consent.accepted' : 'consent.declined', payload, clientTs: p.clientTs };
  const change = p.accept
    ? stepChange(s, 'instructions', p.clientTs, { consentVersion: payload.version, consentedAt: now }, [answer])
    : ending(s, 'declined', now, { before: [answer], also: { consentVersion: payload.version } });
  // A compare-and-set, not a transaction: see SessionsRepo.changeFrom (on PostgreSQL the consent's balance counts
  // stay locked for one statement). Lost to a concurrent answer: nothing to do, or the session has ended.
  if (await changeFromRead(ctx.store, s, change, now)) return s.session;
  if (!pending(s)) return null;
  throw raced();
}

/**
 * The session a consent answer is made to. With its definitions known (sessionDefinitions: the row session:state read)
 * and the answer naming the study's consent version, the row is taken to be at the consent step and active without
 * reading it: the compare-and-set then checks exactly that, and a lost one answers the row as it is, which `pending`
 * judges as before. Otherwise (an unknown session, or another version, whose answer depends on the step) it is read.
 */
async function consentContext(ctx: ServiceContext, sessionId: string, p: ConsentRespond): Promise<SessionContext> {
  const known = await sessionDefinitions(ctx, sessionId);
  if (p.version !== known.study.consent.version) return loadSession(ctx, sessionId);
  return activeAt(known, 'consent');
}

/** A known session taken to be active at `step`, for a compare-and-set that checks exactly that (see its callers). */
export const activeAt = (known: SessionContext, step: Step): SessionContext => ({ ...known, session: { ...known.session, step, status: 'active' } });

/**
 * Moves on from `from`. Only the instructions step advances this way (the workspace ends with artifact:submit,
 * the survey with survey:submit). Idempotent: if the session is already past `from`, nothing happens. Returns the
 * row this call moved to the workspace, or null when it changed nothing.
 */
export async function advanceStep(ctx: ServiceContext, sessionId: string, p: StepAdvance): Promise<SessionRow | null> {
  const checkStep = (current: Step): boolean => {
    if (STEP_ORDER.indexOf(current) > STEP_ORDER.indexOf(p.from)) return false;
    if (current !== p.from) throw new ServiceError('wrong_step', `the session is at "${current}", not "${p.from}"`, 'from');
    if (p.from !== 'instructions')
      throw new ServiceError('wrong_step', `step "${p.from}" ends with ${p.from === 'consent' ? 'consent:respond' : p.from === 'workspace' ? 'artifact:submit' : 'survey:submit'}`, 'from');
    return true;
  };
  const s = (await instructionsContext(ctx, sessionId, p)) ?? (await loadSession(ctx, sessionId));
  if (!checkStep(s.session.step)) return null;
  await expireIfDue(ctx, s);
  checkActive(s, ['instructions']);
  // A compare-and-set (SessionsRepo.changeFrom): a concurrent advance moved it on first (idempotent), or the session
  // ended meanwhile (checkActive throws).
  if (await changeFromRead(ctx.store, s, stepChange(s, 'workspace', p.clientTs), ctx.now())) return s.session;
  if (!checkStep(s.session.step)) return null;
  checkActive(s, ['instructions']);
  throw raced();
}

/**
 * The session leaving the instructions, without a read while its deadline is ahead (workingAt); undefined (read it)
 * for another step.
 */
async function instructionsContext(ctx: ServiceContext, sessionId: string, p: StepAdvance): Promise<SessionContext | undefined> {
  return p.from === 'instructions' ? workingAt(ctx, sessionId, 'instructions') : undefined;
}

/**
 * A known session taken to be active at a working step (the instructions or the workspace) without a read, when the row
 * session:state last read (sessionDefinitions) has its consent time, written once, and the deadline from it is still
 * ahead: the caller's compare-and-set checks the step and status, and a lost one answers the row as it is. Undefined
 * (read it) otherwise: an unknown consent time, or a deadline reached, whose time-out requireActive records.
 */
export async function workingAt(ctx: ServiceContext, sessionId: string, step: 'instructions' | 'workspace'): Promise<SessionContext | undefined> {
  const known = await sessionDefinitions(ctx, sessionId);
  const deadline = deadlineOf(known);
  if (deadline === null || ctx.now() >= deadline) return undefined;
  return activeAt(known, step);
}
