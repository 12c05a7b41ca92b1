/**
 * Deviations an `analyze --prereg` run makes (its λ, cost definition, bootstrap replicates and seed, and the judge
 * model, samples k and rubric of the scores it read, where they differ from the plan), recorded in the study's store
 * beside the runtime's: the same table, once per (version, kind, file, field), audited. Only against the locked
 * version the dataset names, with the same plan and study hashes: a dataset from another database records nothing here.
 */
import type { DeviationKind } from '../../common/preregistration';
import type { NewDeviation, Store } from '../storage';

export interface AnalysisDeviationInput {
  studyId: string;
  version: number;
  planHash: string;
  studyHash: string;
  findings: readonly { kind: DeviationKind; file: string; field: string; message: string }[];
  actor: string;
  now: number;
}

export type AnalysisDeviationOutcome =
  | { status: 'recorded'; recorded: NewDeviation[]; alreadyRecorded: number }
  | { status: 'no_such_lock'; reason: string };

export async function recordAnalysisDeviations(store: Store, input: AnalysisDeviationInput): Promise<AnalysisDeviationOutcome> {
  const versions = await store.preregistrations.versions(input.studyId);
  const lock = versions.find((v) => v.version === input.version);
  if (!lock || lock.planHash !== input.planHash || lock.studyHash !== input.studyHash) {
    const why = !lock ? (versions.length === 0 ? 'no locked plan' : `no version ${input.version}`) : 'a version with other hashes';
    return { status: 'no_such_lock', reason: `${store.description} has ${why} of "${input.studyId}" (the dataset names version ${input.version}, plan ${input.planHash.slice(0, 12)})` };
  }
  const recorded: NewDeviation[] = [];
  for (const f of input.findings) {
    const d: NewDeviation = { ...f, studyId: input.studyId, version: input.version, detectedAt: input.now };
    const isNew = await store.transaction(async (tx) => {
      const inserted = await tx.preregistrations.recordDeviation(d);
      if (inserted)
        await tx.audit.append({ at: input.now, actor: input.actor, action: 'preregistration_deviation', studyId: input.studyId, details: { version: d.version, kind: d.kind, file: d.file, field: d.field, source: 'analyze' } });
      return inserted;
    });
    if (isNew) recorded.push(d);
  }
  return { status: 'recorded', recorded, alreadyRecorded: input.findings.length - recorded.length };
}
