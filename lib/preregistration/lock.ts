/**
 * Locking a study's plan (`npm run prereg -- lock`, the dashboard's button): validates the plan and what it names,
 * records a new version (plan hash, study fingerprint and hash, time, who) in the store and the audit log, and
 * writes preregistration.json. Locking again with nothing changed says so and stores nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PreregistrationsRepo, Store } from '../storage';
import { PreregistrationFile, type LockedPlan, type LockResult } from '../../common/preregistration';
import type { LoadedSurvey } from '../../common/survey';
import { ConfigError, type StudyDefinition } from '../studyFiles/studyConfig';
import { planFilePath, planReferenceProblems, readPlanFile, displayPath } from './planFile';
import { fingerprintHash, studyFingerprint } from './fingerprint';
import { forgetCachedLock } from './joinCheck';

export interface LockInput {
  store: Store;
  study: StudyDefinition;
  survey: LoadedSurvey | undefined;
  rubricsDir?: string;
  actor: string;
  now: number;
  /** Where preregistration.json goes (default <dataDir>/preregistrations/<study>.json); null writes none. */
  outFile: string | null;
}

/** Thrown when the study has no plan file to lock. */
export class NoPlanError extends Error {
  constructor(readonly file: string) {
    super(`no plan file ${displayPath(file)}: write one (docs/preregistration.md) before locking`);
    this.name = 'NoPlanError';
  }
}

export const preregistrationJsonPath = (dataDir: string, studyId: string): string => path.join(dataDir, 'preregistrations', `${studyId}.json`);

/** Locks the plan; throws ConfigError (file:line: field: message) for a bad plan, NoPlanError when there is none. */
export async function lockPreregistration(input: LockInput): Promise<LockResult> {
  const { store, study } = input;
  const parsed = readPlanFile(study.dir, study.id);
  if (!parsed) throw new NoPlanError(planFilePath(study.dir, study.id));
  const problems = planReferenceProblems(parsed, study, input.survey);
  if (problems.length > 0) throw new ConfigError(problems);
  const fingerprint = studyFingerprint({ study, survey: input.survey, plan: parsed.plan, planFile: parsed.file, ...(input.rubricsDir ? { rubricsDir: input.rubricsDir } : {}) });
  const studyHash = fingerprintHash(fingerprint);
  const latest = await store.preregistrations.latest(study.id);
  if (latest && latest.planHash === parsed.hash && latest.studyHash === studyHash) {
    return { outcome: 'unchanged', version: latest.version, planHash: latest.planHash, studyHash, message: `already locked as version ${latest.version}: the plan and the study are unchanged, nothing was stored` };
  }
  const version = (latest?.version ?? 0) + 1;
  const document: LockedPlan = {
    study_id: study.id,
    version,
    locked_at: new Date(input.now).toISOString(),
    locked_at_ms: input.now,
    locked_by: input.actor,
    plan_file: parsed.file,
    plan_hash: parsed.hash,
    study_hash: studyHash,
    plan: parsed.plan,
    fingerprint,
  };
  const stored = await store.transaction(async (tx) => {
    const inserted = await tx.preregistrations.insertVersion({ studyId: study.id, version, planHash: parsed.hash, studyHash, lockedAt: input.now, lockedBy: input.actor, document });
    if (inserted)
      await tx.audit.append({ at: input.now, actor: input.actor, action: 'preregistration_lock', studyId: study.id, details: { version, planHash: parsed.hash, studyHash } });
    return inserted;
  });
  forgetCachedLock(store, study.id);
  if (!stored) throw new Error(`another lock of "${study.id}" stored version ${version} at the same time; run the lock again`);
  if (input.outFile) await writePreregistrationJson(store, study.id, input.outFile);
  return { outcome: 'locked', version, planHash: parsed.hash, studyHash, message: `locked version ${version}${latest ? ` (version ${latest.version} stays on record)` : ''}` };
}

/**
 * Every locked version of the study, oldest first: preregistration.json (also in the dataset export, which passes
 * its snapshot so the file agrees with the rest of the dataset).
 */
export async function preregistrationFile(db: { preregistrations: Pick<PreregistrationsRepo, 'versions'> }, studyId: string): Promise<PreregistrationFile> {
  const versions = (await db.preregistrations.versions(studyId)).map((v) => v.document);
  return { schema_version: 1, study_id: studyId, current_version: versions.at(-1)?.version ?? null, versions };
}

export async function writePreregistrationJson(store: Store, studyId: string, file: string): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(await preregistrationFile(store, studyId), null, 2)}\n`);
}
