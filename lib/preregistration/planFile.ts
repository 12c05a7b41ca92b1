/**
 * Reading studies/<id>.prereg.yaml: the zod schema (common/preregistration.ts) and the references the plan makes
 * to the study (conditions, survey items, rubrics), every problem as `file:line: field: message`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PreregistrationPlan, type PlanOutcome } from '../../common/preregistration';
import { validateYaml } from '../../common/yamlSource';
import type { LoadedSurvey } from '../../common/survey';
import { ConfigError, type ConfigProblem, type StudyDefinition } from '../studyFiles/studyConfig';

/** The plan file of a study: studies/<id>.prereg.yaml (the study loader skips this suffix). */
export const PLAN_FILE_SUFFIX = '.prereg.yaml';

export function planFilePath(studiesDir: string, studyId: string): string {
  return path.join(studiesDir, `${studyId}${PLAN_FILE_SUFFIX}`);
}

export interface ParsedPlan {
  /** The file as shown in messages (relative to the working folder when inside it). */
  file: string;
  text: string;
  /** sha256 of the file's text. */
  hash: string;
  plan: PreregistrationPlan;
  lineOf: (fieldPath: readonly PropertyKey[]) => number | null;
}

export const displayPath = (file: string): string => {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel : file;
};

/** The study's plan file validated against the schema; null when the study has none. Throws ConfigError naming file:line: field. */
export function readPlanFile(studiesDir: string, studyId: string): ParsedPlan | null {
  const abs = planFilePath(studiesDir, studyId);
  if (!fs.existsSync(abs)) return null;
  const file = displayPath(abs);
  const text = fs.readFileSync(abs, 'utf8');
  const result = validateYaml(text, PreregistrationPlan);
  if (!result.ok) throw new ConfigError(result.problems.map((p) => ({ file, line: p.line, field: p.path.map(String).join('.'), message: p.message })));
  return { file, text, hash: sha256(text), plan: result.data, lineOf: result.lineOf };
}

export const sha256 = (text: string | Buffer): string => crypto.createHash('sha256').update(text).digest('hex');

/**
 * What the plan names that the study does not have: a condition, a survey Likert item, a rubric no task uses
 * (the judge rubric), a hypothesis. Each problem names the plan file, line and field.
 */
export function planReferenceProblems(parsed: ParsedPlan, study: StudyDefinition, survey: LoadedSurvey | undefined): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const at = (field: (string | number)[], message: string) => problems.push({ file: parsed.file, line: parsed.lineOf(field), field: field.join('.'), message });
  const conditions = study.conditions.map((c) => c.id);
  const likertItems = (survey?.items ?? []).filter((i) => i.kind === 'likert').map((i) => i.id);
  const checkOutcome = (outcome: PlanOutcome, field: (string | number)[]) => {
    if (!outcome.startsWith('likert:')) return;
    const item = outcome.slice('likert:'.length);
    if (!likertItems.includes(item))
      at(field, `the survey "${study.survey}" has no Likert item "${item}" (it has: ${likertItems.join(', ') || 'none'})`);
  };
  const checkComparison = (c: { a: string; b: string }, field: (string | number)[]) => {
    for (const side of ['a', 'b'] as const)
      if (!conditions.includes(c[side])) at([...field, side], `the study "${study.id}" has no condition "${c[side]}" (it has: ${conditions.join(', ')})`);
  };
  const { plan } = parsed;
  checkOutcome(plan.primary.outcome, ['primary', 'outcome']);
  checkComparison(plan.primary.comparison, ['primary', 'comparison']);
  plan.secondary.forEach((s, i) => {
    checkOutcome(s.outcome, ['secondary', i, 'outcome']);
    if (s.comparison) checkComparison(s.comparison, ['secondary', i, 'comparison']);
  });
  const rubrics = [...new Set(study.tasks.map((t) => t.rubric))];
  if (!rubrics.includes(plan.analysis.judge.rubric))
    at(['analysis', 'judge', 'rubric'], `no task of the study "${study.id}" uses the rubric "${plan.analysis.judge.rubric}" (they use: ${rubrics.join(', ')})`);
  return problems;
}
