/**
 * The judge settings behind a dataset's scores, read from its judgements.csv (one row per judge sample): the models
 * that answered, the number of samples per scored artifact (k) and the rubrics. Compared with the plan's
 * analysis.judge by settingsDeviations. Null when the dataset has no judge samples (nothing to compare).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseCsv } from '../input/csvTable';
import { readDatasetText } from '../input/datasetError';

export interface JudgeSettings {
  /** Distinct models, sorted (the provider's reported model where it gave one). */
  models: string[];
  /** Distinct sample counts per (session, artifact version, rubric, model), ascending. */
  samples: number[];
  rubrics: string[];
}

export function readJudgeSettings(datasetDir: string): JudgeSettings | null {
  const file = join(datasetDir, 'judgements.csv');
  if (!existsSync(file)) return null;
  const csv = parseCsv(readDatasetText(file));
  const col = (name: string) => csv.header.indexOf(name);
  const [session, version, rubric, model] = ['session_id', 'artifact_version', 'rubric_id', 'model'].map(col) as [number, number, number, number];
  if (csv.rows.length === 0 || session < 0 || rubric < 0 || model < 0) return null;
  const perArtifact = new Map<string, number>();
  const models = new Set<string>();
  const rubrics = new Set<string>();
  for (const r of csv.rows) {
    const cell = (i: number) => (i >= 0 ? (r[i] ?? '') : '');
    models.add(cell(model));
    rubrics.add(cell(rubric));
    const key = [cell(session), cell(version), cell(rubric), cell(model)].join('\u0000');
    perArtifact.set(key, (perArtifact.get(key) ?? 0) + 1);
  }
  return { models: [...models].sort(), samples: [...new Set(perArtifact.values())].sort((a, b) => a - b), rubrics: [...rubrics].sort() };
}

/** A reported model is the planned one when equal, or the planned name with a dated snapshot (gpt-4o → gpt-4o-2024-08-06). */
export function sameModel(reported: string, planned: string): boolean {
  return reported === planned || (reported.startsWith(`${planned}-`) && /^\d{4}-\d{2}-\d{2}$/.test(reported.slice(planned.length + 1)));
}
