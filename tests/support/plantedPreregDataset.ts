/**
 * A small dataset with a planted effect (clarify-first scores one point higher on quality) and sessions that the
 * plan's exclusions must leave out (pilot, mostly_pasted, failed attention check, too short, too long, unscored):
 * the --prereg tests' input. Deterministic (seeded), so a scipy reference can be computed on the same rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../../lib/stats/seededRandom';
import type { PreregistrationFile, PreregistrationPlan } from '../../common/preregistration';

export const PLANTED_PLAN: PreregistrationPlan = {
  title: 'Planted effect',
  hypotheses: [{ id: 'h1', text: 'clarify-first is more productive than baseline' }],
  primary: { hypothesis: 'h1', outcome: 'pz', comparison: { a: 'clarify-first', b: 'baseline', direction: 'greater', test: 'mann_whitney', alpha: 0.05 } },
  secondary: [{ outcome: 'likert:ai_usefulness', comparison: { a: 'clarify-first', b: 'baseline', direction: 'two-sided', test: 'welch_t', alpha: 0.05 } }],
  sample: { n_per_condition: 30, rationale: 'planted' },
  stopping_rule: { n_per_condition: 30 },
  exclusions: { pilot: true, integrity_flags: ['mostly_pasted'], failed_attention_check: true, time_on_task: { min_seconds: 300, max_seconds: 3600 }, unscored: true },
  analysis: { lambda: 0.5, cost: 'weighted', bootstrap: { replicates: 200, seed: 1 }, judge: { model: 'gpt-4o', samples: 3, rubric: 'visualization-analysis' } },
};

const HEADER = ['session_id', 'task', 'condition', 'is_pilot', 'duration_s', 'attention_check_passed', 'integrity_flags', 'quality', 'user_tokens', 'agent_tokens', 'user_turns', 'agent_turns', 'likert_ai_usefulness'];

/** The planted sessions (one per row, in file order) and the reason each excluded one should be left out. */
export function plantedRows(): { rows: string[][]; reasons: Record<string, number> } {
  const rand = seededRandom(24);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const rows: string[][] = [];
  const planted: [string, (r: string[]) => void][] = [
    ['pilot', (r) => (r[3] = 'true')],
    ['integrity_flag', (r) => (r[6] = 'mostly_pasted;long_away')],
    ['failed_attention_check', (r) => (r[5] = 'false')],
    ['time_below_minimum', (r) => (r[4] = '120')],
    ['time_above_maximum', (r) => (r[4] = '4000')],
    ['unscored', (r) => (r[7] = '')],
  ];
  const reasons: Record<string, number> = {};
  let k = 0;
  for (const task of ['study-habits', 'second-task'])
    for (const condition of ['baseline', 'clarify-first'])
      for (let i = 0; i < 18; i++) {
        const effect = condition === 'clarify-first' ? 1 : 0;
        const row = [`s${String(++k).padStart(3, '0')}`, task, condition, 'false', String(int(400, 3000)), 'true', '', String(Math.min(5, int(1, 4) + effect)), String(int(100, 900)), String(int(300, 2000)), String(int(2, 12)), String(int(2, 12)), String(Math.min(5, int(1, 4) + effect))];
        // A few sessions per cell carry one planted exclusion of each kind (a no_typing flag is not one the plan excludes).
        if (i < planted.length) {
          planted[i]![1](row);
          reasons[planted[i]![0]] = (reasons[planted[i]![0]] ?? 0) + 1;
        } else if (i === 17) row[6] = 'no_typing';
        rows.push(row);
      }
  return { rows, reasons };
}

const csvLine = (cells: string[]) => cells.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');

/** Writes sessions.csv, preregistration.json and deviations.csv of the planted dataset into dir. */
export function writePlantedDataset(dir: string, plan: PreregistrationPlan = PLANTED_PLAN): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'sessions.csv'), [HEADER, ...plantedRows().rows].map(csvLine).join('\n') + '\n');
  const file: PreregistrationFile = {
    schema_version: 1,
    study_id: 'visualization',
    current_version: 1,
    versions: [
      {
        study_id: 'visualization',
        version: 1,
        locked_at: '2026-11-01T09:00:00.000Z',
        locked_at_ms: Date.UTC(2026, 10, 1, 9),
        locked_by: 'researcher',
        plan_file: 'studies/visualization.prereg.yaml',
        plan_hash: 'a'.repeat(64),
        study_hash: 'b'.repeat(64),
        plan,
        fingerprint: [],
      },
    ],
  };
  fs.writeFileSync(path.join(dir, 'preregistration.json'), JSON.stringify(file, null, 2));
  fs.writeFileSync(
    path.join(dir, 'deviations.csv'),
    'detected_at,version,kind,file,field,message,justification\n2026-11-20T10:00:00.000Z,1,changed_after_lock,studies/visualization.yaml,conditions.1.temperature,conditions.1.temperature changed after the lock,the provider retired 0.7\n',
  );
}
