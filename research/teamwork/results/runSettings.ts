/**
 * Settings never mix: the fields of a run's `settings` that change what a run measures, how two runs'
 * settings differ (as "temperature 0.7 → 0.2"), and the mixes a results folder or a merged report must
 * not hide — one model's runs made under different settings, one task under different task hashes, models
 * labelled by different judges.
 */
import type { RunSettings, TeamworkRun } from '../../../common/teamworkRun';

/** Compared between runs; `seeds` (how many were asked for) and `tandem_version` are recorded, not compared. */
export const COMPARED_SETTINGS = ['temperature', 'max_tokens', 'referee', 'second_rater', 'third_rater', 'partner', 'models_file_hash'] as const;
export const JUDGE_SETTINGS = ['referee', 'second_rater', 'third_rater'] as const;

const shown = (v: unknown): string => (v === null || v === undefined ? 'none' : typeof v === 'string' && /^[0-9a-f]{64}$/.test(v) ? v.slice(0, 12) : String(v));

/** "field old → new" for each compared field that differs (empty: the same settings). */
export function settingsDifferences(before: RunSettings, after: RunSettings, fields: readonly (keyof RunSettings)[] = COMPARED_SETTINGS): string[] {
  return fields.filter((f) => (before[f] ?? null) !== (after[f] ?? null)).map((f) => `${String(f)} ${shown(before[f])} → ${shown(after[f])}`);
}

export interface SettingsMix {
  kind: 'model_settings' | 'task_hash' | 'judges';
  /** The models concerned. */
  models: string[];
  message: string;
}

/** The first run of each distinct settings value, in run order. */
function distinct<T>(runs: readonly TeamworkRun[], key: (r: TeamworkRun) => T | undefined): Array<{ value: T; run: TeamworkRun }> {
  const out: Array<{ value: T; run: TeamworkRun; id: string }> = [];
  for (const r of runs) {
    const value = key(r);
    if (value === undefined) continue;
    const id = JSON.stringify(value);
    if (!out.some((o) => o.id === id)) out.push({ value, run: r, id });
  }
  return out;
}

/**
 * Every mix in `runs`: a model whose runs differ in a compared setting; a task run under different task
 * hashes (by any models); models whose judges differ. Runs without settings take part only in the task-hash check.
 */
export function settingsMixes(runs: readonly TeamworkRun[]): SettingsMix[] {
  const out: SettingsMix[] = [];
  const models = [...new Set(runs.map((r) => r.model))].sort();
  for (const m of models) {
    const seen = distinct(runs.filter((r) => r.model === m), (r) => (r.settings ? Object.fromEntries(COMPARED_SETTINGS.map((f) => [f, r.settings![f] ?? null])) : undefined));
    for (const other of seen.slice(1)) {
      out.push({ kind: 'model_settings', models: [m], message: `${m}: runs made under different settings (${settingsDifferences(seen[0]!.run.settings!, other.run.settings!).join(', ')})` });
    }
  }
  const tasks = [...new Set(runs.map((r) => r.task))].sort();
  for (const t of tasks) {
    const hashes = distinct(runs.filter((r) => r.task === t), (r) => r.task_hash);
    if (hashes.length > 1) {
      const byHash = hashes.map((h) => `${h.value.slice(0, 12)} (${[...new Set(runs.filter((r) => r.task === t && r.task_hash === h.value).map((r) => r.model))].sort().join(', ')})`);
      out.push({ kind: 'task_hash', models: [...new Set(runs.filter((r) => r.task === t).map((r) => r.model))].sort(), message: `task ${t} was run from different task files: ${byHash.join(' vs ')}` });
    }
  }
  const judges = distinct(runs, (r) => (r.settings ? Object.fromEntries(JUDGE_SETTINGS.map((f) => [f, r.settings![f] ?? null])) : undefined));
  if (judges.length > 1) {
    const who = judges.map((j) => `${JUDGE_SETTINGS.map((f) => `${f} ${shown(j.run.settings![f])}`).join(', ')} (${[...new Set(runs.filter((r) => r.settings && JUDGE_SETTINGS.every((f) => (r.settings![f] ?? null) === (j.run.settings![f] ?? null))).map((r) => r.model))].sort().join(', ')})`);
    out.push({ kind: 'judges', models: [...new Set(runs.filter((r) => r.settings).map((r) => r.model))].sort(), message: `models were labelled by different judges: ${who.join(' vs ')}` });
  }
  return out;
}
