/** The study page's pre-registration view: plan file, its problems, locked versions, deviations (recorded first). */
import type { PreregistrationStatus } from '../../common/preregistration';
import type { LoadedSurvey } from '../../common/survey';
import type { Store } from '../storage';
import { ConfigError, type StudyDefinition } from '../studyFiles/studyConfig';
import { recordDeviations } from './deviations';
import { planFilePath, planReferenceProblems, readPlanFile, displayPath, type ParsedPlan } from './planFile';

const problemLine = (p: { file: string; line: number | null; field: string; message: string }) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`;

export async function preregistrationStatus(store: Store, input: { study: StudyDefinition; survey: LoadedSurvey | undefined; rubricsDir?: string; now: number }): Promise<PreregistrationStatus> {
  const { study } = input;
  let parsed: ParsedPlan | null = null;
  let planProblems: string[] = [];
  try {
    parsed = readPlanFile(study.dir, study.id);
    if (parsed) planProblems = planReferenceProblems(parsed, study, input.survey).map(problemLine);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    planProblems = err.problems.map(problemLine);
  }
  // The dashboard is one of the two places deviations are detected (start-up is the other).
  await recordDeviations(store, { study, survey: input.survey, now: input.now, ...(input.rubricsDir ? { rubricsDir: input.rubricsDir } : {}) });
  const versions = await store.preregistrations.versions(study.id);
  const latest = versions.at(-1);
  const planExists = parsed !== null || planProblems.length > 0;
  return {
    studyId: study.id,
    planFile: planExists ? displayPath(planFilePath(study.dir, study.id)) : null,
    planProblems,
    versions: versions.map((v) => ({ version: v.version, lockedAt: v.lockedAt, lockedBy: v.lockedBy, planHash: v.planHash, studyHash: v.studyHash })),
    planChanged: planExists && (latest === undefined || parsed === null || parsed.hash !== latest.planHash),
    deviations: (await store.preregistrations.deviations(study.id)).map((d) => ({
      id: d.id,
      version: d.version,
      kind: d.kind,
      file: d.file,
      field: d.field,
      message: d.message,
      detectedAt: d.detectedAt,
      justification: d.justification,
      justifiedAt: d.justifiedAt,
    })),
  };
}

/** Whether going live must ask for a lock first: the study has a plan file and no version of it was ever locked. */
export async function needsLockBeforeLive(store: Store, study: StudyDefinition): Promise<boolean> {
  let hasPlan: boolean;
  try {
    hasPlan = readPlanFile(study.dir, study.id) !== null;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    hasPlan = true;
  }
  return hasPlan && (await store.preregistrations.latest(study.id)) === undefined;
}
