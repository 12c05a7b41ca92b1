/**
 * The fingerprint of a study as run: one sha256 per field of each file that defines it (the study file's
 * settings, each task, each condition's provider, model, temperature, system prompt …, the survey's items,
 * the rubrics, the material files' bytes, the plan's judge settings). Hashes are of the validated content
 * (canonical JSON), so comments and formatting are not changes; a field that changed is named by its file
 * and dotted path, e.g. studies/visualization.yaml conditions.1.system_prompt.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FingerprintEntry, PreregistrationPlan } from '../../common/preregistration';
import { canonicalJson } from '../../common/rubric';
import type { LoadedSurvey } from '../../common/survey';
import type { StudyDefinition } from '../studyFiles/studyConfig';
import { loadRubricById } from '../studyFiles/rubricFiles';
import { sha256 } from './planFile';

const valueHash = (value: unknown): string => sha256(canonicalJson(value));

function entriesOf(file: string, prefix: string, value: Record<string, unknown>, out: FingerprintEntry[]): void {
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out.push({ file, field: prefix ? `${prefix}.${key}` : key, hash: valueHash(v) });
}

export interface FingerprintInput {
  study: StudyDefinition;
  survey: LoadedSurvey | undefined;
  /** Where the study's rubrics are (default: the repository's rubrics/). */
  rubricsDir?: string;
  /** The plan in force: its judge settings are part of the study as run. */
  plan: PreregistrationPlan;
  planFile: string;
}

/** Every hashed field, in a stable order (file, then the file's own order). */
export function studyFingerprint(input: FingerprintInput): FingerprintEntry[] {
  const { study, survey } = input;
  const out: FingerprintEntry[] = [];
  const studiesFolder = path.basename(study.dir);
  const studyFile = `${studiesFolder}/${study.id}.yaml`;
  const { tasks, conditions, id: _id, definitionHash: _hash, dir: _dir, ...settings } = study;
  entriesOf(studyFile, '', settings, out);
  tasks.forEach((task, t) => {
    const { materials, ...rest } = task;
    entriesOf(studyFile, `tasks.${t}`, rest, out);
    materials.forEach((m, i) => {
      out.push({ file: studyFile, field: `tasks.${t}.materials.${i}`, hash: valueHash(m) });
      const abs = path.resolve(study.dir, m.path);
      out.push({ file: `${studiesFolder}/${m.path}`, field: 'content', hash: fs.existsSync(abs) ? sha256(fs.readFileSync(abs)) : 'missing' });
    });
  });
  conditions.forEach((c, i) => entriesOf(studyFile, `conditions.${i}`, c as unknown as Record<string, unknown>, out));
  if (survey) {
    const surveyFile = `surveys/${survey.id}.yaml`;
    const { items, id: _sid, ...rest } = survey;
    entriesOf(surveyFile, '', rest, out);
    items.forEach((item, i) => out.push({ file: surveyFile, field: `items.${i}`, hash: valueHash(item) }));
  }
  const rubricIds = [...new Set([...tasks.map((t) => t.rubric), input.plan.analysis.judge.rubric])].sort();
  for (const id of rubricIds) {
    let rubric: Record<string, unknown> | null = null;
    try {
      rubric = loadRubricById(id, input.rubricsDir).rubric as unknown as Record<string, unknown>;
    } catch {
      rubric = null;
    }
    if (rubric) entriesOf(`rubrics/${id}.yaml`, '', rubric, out);
    else out.push({ file: `rubrics/${id}.yaml`, field: 'content', hash: 'missing' });
  }
  out.push({ file: input.planFile, field: 'analysis.judge', hash: valueHash(input.plan.analysis.judge) });
  return out;
}

/** The study hash: sha256 of the fingerprint's canonical JSON. */
export function fingerprintHash(entries: readonly FingerprintEntry[]): string {
  return valueHash(entries);
}

export interface FingerprintChange {
  file: string;
  field: string;
  change: 'changed' | 'added' | 'removed';
}

/** What differs between the locked fingerprint and the current one (locked order, then additions). */
export function fingerprintChanges(locked: readonly FingerprintEntry[], current: readonly FingerprintEntry[]): FingerprintChange[] {
  const key = (e: FingerprintEntry) => `${e.file}\u0000${e.field}`;
  const now = new Map(current.map((e) => [key(e), e.hash]));
  const before = new Set(locked.map(key));
  const changes: FingerprintChange[] = [];
  for (const e of locked) {
    const hash = now.get(key(e));
    if (hash === undefined) changes.push({ file: e.file, field: e.field, change: 'removed' });
    else if (hash !== e.hash) changes.push({ file: e.file, field: e.field, change: 'changed' });
  }
  for (const e of current) if (!before.has(key(e))) changes.push({ file: e.file, field: e.field, change: 'added' });
  return changes;
}
