/**
 * The stopping rule at each join (server/services/join.ts, inside the join's transaction, before the new session's
 * first trajectory event): a non-pilot session that starts in a condition that already has the plan's
 * n_per_condition consented sessions, or after the plan's stop date, records its deviation then. Collection goes on:
 * the check never refuses a join, and a failure is logged, not thrown.
 *
 * Cheap on purpose: the latest locked version of each study is cached per store for LOCK_CACHE_MS (a lock through
 * the same store forgets it at once; another node's lock is seen within that time), a stop date costs no query, a
 * sample rule one count of the condition's sessions that stops at n (index sessions_study), and a deviation already recorded in this
 * cache's life costs nothing more.
 */
import type { Logger } from 'pino';
import type { PreregistrationPlan } from '../../common/preregistration';
import type { NewDeviation, Store, StoreRepositories } from '../storage';
import { stopDateEnd, stopDateFindings, type DeviationFinding } from './deviations';

export const LOCK_CACHE_MS = 10_000;

interface CachedLock {
  fetchedAt: number;
  lock: { version: number; planFile: string; plan: PreregistrationPlan; stopAt: number | null } | null;
  /** Deviation fields known to be recorded for this version (nothing to count or write again). */
  recorded: Set<string>;
}

const caches = new WeakMap<Store, Map<string, CachedLock>>();

/** Drops the cached lock of a study (lockPreregistration calls it, so a new version applies to the next join). */
export function forgetCachedLock(store: Store, studyId: string): void {
  caches.get(store)?.delete(studyId);
}

async function cachedLock(store: Store, tx: StoreRepositories, studyId: string, now: number): Promise<CachedLock> {
  let perStudy = caches.get(store);
  if (!perStudy) caches.set(store, (perStudy = new Map()));
  const hit = perStudy.get(studyId);
  // Wall-clock age; a clock that went back refreshes too.
  if (hit && now >= hit.fetchedAt && now - hit.fetchedAt < LOCK_CACHE_MS) return hit;
  const row = await tx.preregistrations.latest(studyId);
  const plan = row?.document.plan;
  const entry: CachedLock = {
    fetchedAt: now,
    lock: row && plan ? { version: row.version, planFile: row.document.plan_file, plan, stopAt: plan.stopping_rule.date === undefined ? null : stopDateEnd(plan.stopping_rule.date) } : null,
    recorded: new Set(),
  };
  perStudy.set(studyId, entry);
  return entry;
}

export interface JoiningSession {
  studyId: string;
  conditionId: string;
  isPilot: boolean;
  now: number;
}

/** The deviation this join makes, if any (pure but for the one count it may need). */
async function joinFinding(tx: StoreRepositories, cached: CachedLock, s: JoiningSession): Promise<DeviationFinding | null> {
  const { lock } = cached;
  if (!lock) return null;
  if (lock.stopAt !== null) {
    if (s.now <= lock.stopAt || cached.recorded.has('stopping_rule.date')) return null;
    return stopDateFindings(lock.plan, lock.planFile, 1)[0] ?? null;
  }
  const n = lock.plan.stopping_rule.n_per_condition;
  const field = `stopping_rule.n_per_condition.${s.conditionId}`;
  if (n === undefined || cached.recorded.has(field)) return null;
  const count = await tx.preregistrations.countConsentedInCondition(s.studyId, s.conditionId, n);
  if (count < n) return null;
  return {
    kind: 'sample_beyond_stopping_rule',
    file: lock.planFile,
    field,
    message: `a new session started in condition "${s.conditionId}", which already had ${count} consented session${count === 1 ? '' : 's'}: the stopping rule's ${n} per condition was reached`,
  };
}

/**
 * Records the deviation a joining session makes (once per version, kind, file and field, audited like the others),
 * in the caller's transaction. Pilot sessions are not part of the sample and are not checked.
 */
export async function checkStoppingRuleAtJoin(store: Store, tx: StoreRepositories, s: JoiningSession, log?: Logger): Promise<NewDeviation | null> {
  if (s.isPilot) return null;
  try {
    const cached = await cachedLock(store, tx, s.studyId, s.now);
    const finding = await joinFinding(tx, cached, s);
    if (!finding || !cached.lock) return null;
    const d: NewDeviation = { ...finding, studyId: s.studyId, version: cached.lock.version, detectedAt: s.now };
    const isNew = await tx.preregistrations.recordDeviation(d);
    if (isNew) await tx.audit.append({ at: s.now, actor: 'system', action: 'preregistration_deviation', studyId: s.studyId, details: { version: d.version, kind: d.kind, file: d.file, field: d.field } });
    cached.recorded.add(d.field);
    if (isNew) log?.warn({ study: s.studyId, version: d.version, kind: d.kind, field: d.field }, `pre-registration deviation: ${d.file}: ${d.message}`);
    return isNew ? d : null;
  } catch (err) {
    log?.error({ err, study: s.studyId }, 'pre-registration stopping-rule check failed; the session starts anyway');
    return null;
  }
}
