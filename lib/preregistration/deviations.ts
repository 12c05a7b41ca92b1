/**
 * Deviations from the locked plan: a change to anything the lock hashed (named by file and field), a sample beyond
 * the stopping rule, sessions collected after the stop date. Each is recorded once (per version, kind, file and
 * field) with the time it was first seen; the researcher may add a justification later.
 */
import type { LoadedSurvey } from '../../common/survey';
import type { LockedPlan, PreregistrationPlan } from '../../common/preregistration';
import type { NewDeviation, PreregistrationRow, Store } from '../storage';
import type { StudyDefinition } from '../studyFiles/studyConfig';
import { fingerprintChanges, studyFingerprint } from './fingerprint';

export type DeviationFinding = Omit<NewDeviation, 'studyId' | 'version' | 'detectedAt'>;

/** The moment a stopping date ends: a plain date (YYYY-MM-DD) runs to the end of that day, UTC. */
export function stopDateEnd(date: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) + 86_400_000 : Date.parse(date);
}

/** What differs from the locked fingerprint, as deviations. */
export function fingerprintFindings(locked: LockedPlan, current: LockedPlan['fingerprint']): DeviationFinding[] {
  return fingerprintChanges(locked.fingerprint, current).map((c) => ({
    kind: 'changed_after_lock',
    file: c.file,
    field: c.field,
    message: `${c.field} ${c.change} after the lock`,
  }));
}

/** Conditions sampled beyond the stopping rule's n per condition. */
export function sampleFindings(plan: PreregistrationPlan, planFile: string, counts: Record<string, number>): DeviationFinding[] {
  const n = plan.stopping_rule.n_per_condition;
  if (n === undefined) return [];
  return Object.entries(counts)
    .filter(([, count]) => count > n)
    .map(([condition, count]) => ({
      kind: 'sample_beyond_stopping_rule',
      file: planFile,
      field: `stopping_rule.n_per_condition.${condition}`,
      message: `condition "${condition}" has ${count} sessions, beyond the stopping rule's ${n} per condition`,
    }));
}

export function stopDateFindings(plan: PreregistrationPlan, planFile: string, sessionsAfter: number): DeviationFinding[] {
  const date = plan.stopping_rule.date;
  if (date === undefined || sessionsAfter === 0) return [];
  return [{ kind: 'session_after_stop_date', file: planFile, field: 'stopping_rule.date', message: `${sessionsAfter} session${sessionsAfter === 1 ? '' : 's'} collected after the stop date ${date}` }];
}

export interface DeviationCheck {
  study: StudyDefinition;
  survey: LoadedSurvey | undefined;
  rubricsDir?: string;
  now: number;
}

/**
 * Compares the study as it is now with its latest locked version and records what is new. Returns the
 * deviations recorded by this call (none when the study was never locked or nothing new differs).
 */
export async function recordDeviations(store: Store, check: DeviationCheck): Promise<{ locked: PreregistrationRow | undefined; recorded: NewDeviation[] }> {
  const { study } = check;
  const locked = await store.preregistrations.latest(study.id);
  if (!locked) return { locked, recorded: [] };
  const doc = locked.document;
  const current = studyFingerprint({ study, survey: check.survey, plan: doc.plan, planFile: doc.plan_file, ...(check.rubricsDir ? { rubricsDir: check.rubricsDir } : {}) });
  const findings = [
    ...fingerprintFindings(doc, current),
    ...sampleFindings(doc.plan, doc.plan_file, await store.preregistrations.countSessionsByCondition(study.id)),
    ...(doc.plan.stopping_rule.date !== undefined
      ? stopDateFindings(doc.plan, doc.plan_file, await store.preregistrations.countSessionsCreatedAfter(study.id, stopDateEnd(doc.plan.stopping_rule.date)))
      : []),
  ];
  const recorded: NewDeviation[] = [];
  for (const f of findings) {
    const d: NewDeviation = { ...f, studyId: study.id, version: locked.version, detectedAt: check.now };
    const isNew = await store.transaction(async (tx) => {
      const inserted = await tx.preregistrations.recordDeviation(d);
      if (inserted) await tx.audit.append({ at: check.now, actor: 'system', action: 'preregistration_deviation', studyId: study.id, details: { version: d.version, kind: d.kind, file: d.file, field: d.field } });
      return inserted;
    });
    if (isNew) recorded.push(d);
  }
  return { locked, recorded };
}
