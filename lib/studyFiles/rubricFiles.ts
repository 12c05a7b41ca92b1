/**
 * Reads rubric files from disk (rubrics/<id>.yaml), validates them with the common schema and gives
 * each its version hash: sha256 of the canonical JSON of the validated content, so comments and
 * formatting do not change the hash but any change to levels, criteria or inputs does.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { canonicalJson, parseRubric, type Rubric } from '../../common/rubric';

export interface LoadedRubric {
  rubric: Rubric;
  /** sha256 hex of the canonical rubric content. */
  hash: string;
  file: string;
}

/** Default rubric folder: <repo>/rubrics. */
export const DEFAULT_RUBRICS_DIR = resolve(import.meta.dirname, '../../rubrics');

export function rubricHash(rubric: Rubric): string {
  return createHash('sha256').update(canonicalJson(rubric)).digest('hex');
}

export function loadRubricFile(file: string): LoadedRubric {
  const text = readFileSync(file, 'utf8');
  const id = basename(file).replace(/\.ya?ml$/, '');
  const rubric = parseRubric(text, file, id);
  return { rubric, hash: rubricHash(rubric), file };
}

/** Loads every *.yaml rubric in `dir`, keyed by id. Throws on the first invalid file. */
export function loadRubrics(dir: string = DEFAULT_RUBRICS_DIR): Map<string, LoadedRubric> {
  const out = new Map<string, LoadedRubric>();
  for (const name of readdirSync(dir).sort()) {
    if (!/\.ya?ml$/.test(name)) continue;
    const loaded = loadRubricFile(join(dir, name));
    out.set(loaded.rubric.id, loaded);
  }
  return out;
}

export function loadRubricById(id: string, dir: string = DEFAULT_RUBRICS_DIR): LoadedRubric {
  for (const ext of ['.yaml', '.yml']) {
    const file = join(dir, id + ext);
    if (existsSync(file)) return loadRubricFile(file);
  }
  throw new Error(`rubric "${id}" not found in ${dir}`);
}

/** The rubric whose taskKinds include `task` (exact, or with - and _ treated alike), if any. */
export function rubricForTask(rubrics: Map<string, LoadedRubric>, task: string): LoadedRubric | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/-/g, '_');
  for (const loaded of rubrics.values()) {
    if (loaded.rubric.taskKinds.some((k) => norm(k) === norm(task))) return loaded;
  }
  return rubrics.get(task.replace(/_/g, '-'));
}
