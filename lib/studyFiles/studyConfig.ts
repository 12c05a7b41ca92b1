import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { z } from 'zod';
import { Study, type LoadedStudy } from '../../common/study';
import { Survey, type LoadedSurvey } from '../../common/survey';
import { Slug } from '../../common/ids';
import { validateYaml } from '../../common/yamlSource';
import { RubricValidationError } from '../../common/rubric';
import { DEFAULT_RUBRICS_DIR, loadRubricById } from './rubricFiles';

/** One problem in one config file, with the line when the YAML parser can place it. */
export interface ConfigProblem {
  file: string;
  line: number | null;
  /** Dotted path of the offending field, e.g. "tasks.0.fields.1.kind"; "" for the file as a whole. */
  field: string;
  message: string;
}

/**
 * A check of a study beyond its schema, registered by a plug-in (e.g. that a teamwork seat's task file exists and
 * a person can play it). It may complete the study in place (resolve a path) and returns its problems, each naming
 * the study file, line and field.
 */
export type StudyFileCheck = (
  study: Study,
  studiesDir: string,
  file: string,
  lineOf: (path: readonly PropertyKey[]) => number | null,
  rel: (file: string) => string,
) => ConfigProblem[];

/** Thrown when any study or survey file is invalid; lists every problem found so nothing half-loads. */
export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  ${p.file}${p.line ? `:${p.line}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

/** A validated study with the sha256 of its file and the (absolute) studies directory its material paths are relative to. */
export type StudyDefinition = LoadedStudy & { definitionHash: string; dir: string };

export interface LoadedConfig {
  studies: Map<string, StudyDefinition>;
  surveys: Map<string, LoadedSurvey>;
}

interface ParsedFile<T> {
  id: string;
  value: T;
  hash: string;
  /** Line of the field at a path in the file. */
  lineOf: (path: readonly PropertyKey[]) => number | null;
}

function parseYamlFile<T>(file: string, schema: z.ZodType<T>, problems: ConfigProblem[], display: string): ParsedFile<T> | null {
  const id = idOfFile(file);
  const idCheck = Slug.safeParse(id);
  if (!idCheck.success) {
    problems.push({ file: display, line: null, field: '', message: `file name "${id}" is not a valid id: ${idCheck.error.issues[0]?.message}` });
    return null;
  }
  const text = fs.readFileSync(file, 'utf8');
  const result = validateYaml(text, schema);
  if (!result.ok) {
    for (const p of result.problems) problems.push({ file: display, line: p.line, field: p.path.map(String).join('.'), message: p.message });
    return null;
  }
  return { id, value: result.data, hash: crypto.createHash('sha256').update(text).digest('hex'), lineOf: result.lineOf };
}

const idOfFile = (file: string) => path.basename(file).replace(/\.ya?ml$/, '');

/**
 * The YAML files of a directory. Two files for one id (`x.yaml` and `x.yml`) would let one silently win:
 * both are reported, naming both, and neither is loaded.
 */
function yamlFiles(dir: string, problems: ConfigProblem[], rel: (f: string) => string): string[] {
  if (!fs.existsSync(dir)) throw new ConfigError([{ file: dir, line: null, field: '', message: 'directory does not exist' }]);
  const files = fs
    .readdirSync(dir)
    // A study's analysis plan (<id>.prereg.yaml, lib/preregistration/) sits beside it and is not a study.
    .filter((f) => /\.ya?ml$/.test(f) && !f.endsWith('.prereg.yaml'))
    .sort()
    .map((f) => path.join(dir, f));
  const byId = new Map<string, string[]>();
  for (const f of files) byId.set(idOfFile(f), [...(byId.get(idOfFile(f)) ?? []), f]);
  return files.filter((f) => {
    const same = byId.get(idOfFile(f))!;
    if (same.length === 1) return true;
    if (same[0] === f)
      problems.push({ file: rel(f), line: null, field: '', message: `two files for the id "${idOfFile(f)}": ${same.map(rel).join(' and ')}; keep one` });
    return false;
  });
}

/**
 * Why a material path is not a file inside the studies directory, or null when it is. The check is made
 * on the real paths (symlinks resolved) too: a link inside studies/ to /etc/passwd passes a check on names.
 */
export function materialPathProblem(root: string, materialPath: string): string | null {
  const abs = path.resolve(root, materialPath);
  if (!abs.startsWith(root + path.sep)) return 'must stay inside the studies directory';
  if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) return `file not found: ${path.relative(process.cwd(), abs) || abs}`;
  const realRoot = fs.realpathSync(root);
  if (!fs.realpathSync(abs).startsWith(realRoot + path.sep)) return 'must stay inside the studies directory (it is a link to a file outside)';
  return null;
}

/**
 * Problems with the rubric `id` that a study task names: no rubrics/<id>.yaml, or a file that fails
 * the rubric schema (then each problem names the rubric file and its line). Results are memoised in
 * `seen` so a rubric shared by several tasks is read and reported once.
 */
function rubricProblems(id: string, rubricsDir: string, rel: (f: string) => string, seen: Map<string, ConfigProblem[] | 'missing'>): ConfigProblem[] | 'missing' {
  const known = seen.get(id);
  if (known) return known;
  let result: ConfigProblem[] | 'missing';
  try {
    loadRubricById(id, rubricsDir);
    result = [];
  } catch (err) {
    if (!(err instanceof RubricValidationError)) result = 'missing';
    else {
      // RubricValidationError problems read "line N: field: message" (line omitted when unknown).
      result = err.problems.map((p) => {
        const m = /^line (\d+): (.*)$/s.exec(p);
        return { file: rel(err.file), line: m ? Number(m[1]) : null, field: '', message: m ? m[2]! : p };
      });
    }
  }
  seen.set(id, result);
  return result;
}

/**
 * Loads and validates every studies/*.yaml and surveys/*.yaml, plus cross-file references
 * (a study's survey exists; its material files exist inside the studies directory; each task's
 * rubric is a valid rubrics/<id>.yaml — `rubricsDir` defaults to the repository's rubrics/), and the plug-ins'
 * `checks` (the server passes those registered at start-up; wiring/studyConfig.ts loads with all of them).
 * Throws ConfigError naming file, line and field for every problem; returns only when all is valid.
 */
export function loadConfig(dirs: { studiesDir: string; surveysDir: string; rubricsDir?: string }, checks: readonly StudyFileCheck[] = []): LoadedConfig {
  const problems: ConfigProblem[] = [];
  const rel = (f: string) => path.relative(process.cwd(), f) || f;
  const rubricsDir = path.resolve(dirs.rubricsDir ?? DEFAULT_RUBRICS_DIR);
  const rubricsSeen = new Map<string, ConfigProblem[] | 'missing'>();

  const surveys = new Map<string, LoadedSurvey>();
  for (const file of yamlFiles(dirs.surveysDir, problems, rel)) {
    const parsed = parseYamlFile(file, Survey, problems, rel(file));
    if (parsed) surveys.set(parsed.id, { ...parsed.value, id: parsed.id });
  }

  const studies = new Map<string, StudyDefinition>();
  for (const file of yamlFiles(dirs.studiesDir, problems, rel)) {
    const parsed = parseYamlFile(file, Study, problems, rel(file));
    if (!parsed) continue;
    const study = parsed.value;
    const at = parsed.lineOf;
    let ok = true;
    if (!surveys.has(study.survey) && !problems.some((p) => p.file === rel(path.join(dirs.surveysDir, `${study.survey}.yaml`)))) {
      problems.push({ file: rel(file), line: at(['survey']), field: 'survey', message: `no survey "${study.survey}" in ${rel(dirs.surveysDir)}` });
      ok = false;
    }
    // Screening answers are stored beside the survey's (one row per session and item id): the ids must differ.
    const surveyItems = new Set(surveys.get(study.survey)?.items.map((i) => i.id) ?? []);
    study.conditions.forEach((c, ci) =>
      c.group?.screening?.forEach((q, qi) => {
        if (!surveyItems.has(q.id)) return;
        const field = ['conditions', ci, 'group', 'screening', qi, 'id'];
        problems.push({ file: rel(file), line: at(field), field: field.join('.'), message: `"${q.id}" is also an item of survey "${study.survey}": give the screening question another id` });
        ok = false;
      }),
    );
    const root = path.resolve(dirs.studiesDir);
    study.tasks.forEach((task, t) =>
      task.materials.forEach((m, i) => {
        const field = ['tasks', t, 'materials', i, 'path'];
        const problem = materialPathProblem(root, m.path);
        if (problem) {
          problems.push({ file: rel(file), line: at(field), field: field.join('.'), message: problem });
          ok = false;
        }
      }),
    );
    study.tasks.forEach((task, t) => {
      const found = rubricProblems(task.rubric, rubricsDir, rel, rubricsSeen);
      const field = ['tasks', t, 'rubric'];
      if (found === 'missing') {
        problems.push({ file: rel(file), line: at(field), field: field.join('.'), message: `no rubric "${task.rubric}" in ${rel(rubricsDir)}` });
        ok = false;
      } else if (found.length > 0) {
        for (const p of found) if (!problems.includes(p)) problems.push(p);
        problems.push({ file: rel(file), line: at(field), field: field.join('.'), message: `rubric "${task.rubric}" is invalid (see ${found[0]!.file})` });
        ok = false;
      }
    });
    for (const check of checks) {
      const found = check(study, root, rel(file), at, rel);
      if (found.length > 0) {
        problems.push(...found);
        ok = false;
      }
    }
    if (ok) studies.set(parsed.id, { ...study, id: parsed.id, definitionHash: parsed.hash, dir: root });
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { studies, surveys };
}
