/**
 * A temp copy of the visualization study, its survey and its plan (studies/visualization.prereg.yaml), so a
 * test can edit the files (a system prompt, the plan) the way a researcher would after a lock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type LoadedConfig } from '../../lib/studyFiles/studyConfig';
import type { Store } from '../../lib/storage';
import type { PreregistrationPlan } from '../../common/preregistration';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface StudyFilesCopy {
  studiesDir: string;
  surveysDir: string;
  studyFile: string;
  planFile: string;
  load(): LoadedConfig;
  /** Replaces `from` by `to` in a file of the copy (throws when `from` is not there, so a test cannot edit nothing). */
  edit(file: string, from: string | RegExp, to: string): void;
  remove(): void;
}

export function copyVisualizationStudy(): StudyFilesCopy {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-prereg-files-'));
  const studiesDir = path.join(root, 'studies');
  const surveysDir = path.join(root, 'surveys');
  fs.mkdirSync(path.join(studiesDir, 'materials'), { recursive: true });
  fs.mkdirSync(surveysDir);
  fs.copyFileSync(path.join(ROOT, 'studies/visualization.yaml'), path.join(studiesDir, 'visualization.yaml'));
  fs.copyFileSync(path.join(ROOT, 'studies/visualization.prereg.yaml'), path.join(studiesDir, 'visualization.prereg.yaml'));
  fs.cpSync(path.join(ROOT, 'studies/materials/visualization'), path.join(studiesDir, 'materials/visualization'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'surveys/visualization-post.yaml'), path.join(surveysDir, 'visualization-post.yaml'));
  return {
    studiesDir,
    surveysDir,
    studyFile: path.join(studiesDir, 'visualization.yaml'),
    planFile: path.join(studiesDir, 'visualization.prereg.yaml'),
    load: () => loadConfig({ studiesDir, surveysDir }),
    edit(file, from, to) {
      const text = fs.readFileSync(file, 'utf8');
      const next = text.replace(from, to);
      if (next === text) throw new Error(`nothing to replace in ${file}`);
      fs.writeFileSync(file, next);
    },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * A locked version 1 and one justified deviation for `studyId`, written straight to the store (for tests of readers
 * of the export that need rows in deviations.csv without a plan file).
 */
export async function seedLockedPlanWithDeviation(store: Store, studyId: string, at: number): Promise<void> {
  const plan: PreregistrationPlan = {
    title: 'seeded plan',
    hypotheses: [{ id: 'h1', text: 'a beats b' }],
    primary: { hypothesis: 'h1', outcome: 'quality', comparison: { a: 'a', b: 'b', direction: 'greater', test: 'mann_whitney', alpha: 0.05 } },
    secondary: [],
    sample: { n_per_condition: 10, rationale: 'seeded' },
    stopping_rule: { n_per_condition: 10 },
    exclusions: { pilot: true, integrity_flags: [], failed_attention_check: false, unscored: true },
    analysis: { lambda: 0.5, cost: 'weighted', bootstrap: { replicates: 10, seed: 1 }, judge: { model: 'm', samples: 1, rubric: 'r' } },
  };
  const document = {
    study_id: studyId, version: 1, locked_at: new Date(at).toISOString(), locked_at_ms: at, locked_by: 'researcher',
    plan_file: `studies/${studyId}.prereg.yaml`, plan_hash: 'p'.repeat(64), study_hash: 's'.repeat(64), plan,
    fingerprint: [{ file: `studies/${studyId}.yaml`, field: 'conditions.0.model', hash: 'h'.repeat(64) }],
  };
  await store.preregistrations.insertVersion({ studyId, version: 1, planHash: document.plan_hash, studyHash: document.study_hash, lockedAt: at, lockedBy: 'researcher', document });
  await store.preregistrations.recordDeviation({ studyId, version: 1, kind: 'changed_after_lock', file: `studies/${studyId}.yaml`, field: 'conditions.0.model', message: 'conditions.0.model changed after the lock', detectedAt: at + 1 });
  const [d] = await store.preregistrations.deviations(studyId);
  await store.preregistrations.justify(studyId, d!.id, 'the provider retired the model, "same family", a newer snapshot', 'researcher', at + 2);
}
