import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { SurveyItem } from '../../common/survey';
import type { FreeTextExport } from '../../common/study';
import { loadConfig } from '../../lib/studyFiles/studyConfig';

/** Shared bits of the export and withdraw command lines. */

export const StudyIdFlag = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a study id (a-z, 0-9, "_", "-")');

export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR ?? 'data');
}

/** Who ran a command line, for the audit log. */
export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** Formats a zod error of CLI flags as "--flag: message" lines. */
export function flagErrors(error: z.ZodError): string {
  return error.issues.map((i) => `  --${i.path.map(String).join('.').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) || '?'}: ${i.message}`).join('\n');
}

/**
 * The survey of a study from studies/ and surveys/ (STUDIES_DIR / SURVEYS_DIR), for Likert column order and
 * prompts, and the study's export.free_text setting. Returns a null survey with a reason when the definitions
 * cannot be read; the export then falls back to the answers, and free text stays omitted (the default).
 */
export function surveyOfStudy(
  studyId: string,
  env: NodeJS.ProcessEnv = process.env,
): { survey: { items: SurveyItem[] } | null; freeText: FreeTextExport; note: string | null } {
  const studiesDir = resolve(env.STUDIES_DIR ?? 'studies');
  const surveysDir = resolve(env.SURVEYS_DIR ?? 'surveys');
  if (!existsSync(studiesDir) || !existsSync(surveysDir)) return { survey: null, freeText: 'omitted', note: `no ${studiesDir} or ${surveysDir}` };
  try {
    const config = loadConfig({ studiesDir, surveysDir });
    const study = config.studies.get(studyId);
    if (!study) return { survey: null, freeText: 'omitted', note: `study "${studyId}" is not defined in ${studiesDir}` };
    const survey = config.surveys.get(study.survey);
    const freeText = study.export.free_text;
    return survey ? { survey, freeText, note: null } : { survey: null, freeText, note: `survey "${study.survey}" not found` };
  } catch (error) {
    return { survey: null, freeText: 'omitted', note: (error as Error).message.split('\n')[0] ?? 'invalid configuration' };
  }
}
