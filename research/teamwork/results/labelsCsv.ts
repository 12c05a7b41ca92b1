/**
 * labels.csv for auditing the judges against people (`teamwork labels <out-dir> --out labels.csv`): one row
 * per labelled subject message with its context (the lines before it), the labels the task allows, and the
 * referee's, second rater's, third rater's and final labels; `human_label` and `rater` are left empty for a
 * person to fill. `npm run agreement -- <out-dir> --teamwork-labels labels.csv` reads it back and computes the
 * judge–human agreement with the same Cohen's κ as for study dialogue. Cells a spreadsheet would run as a
 * formula get a leading "'".
 */
import { stringify } from 'csv-stringify/sync';
import type { TeamworkRun } from '../../../common/teamworkRun';
import { formulaSafeCell } from '../../exports/spreadsheetCells';

export const TEAMWORK_LABEL_COLUMNS = [
  'message_id', 'run_id', 'model', 'task', 'dimension', 'arm', 'seed', 'seq', 'round', 'labels_allowed', 'context', 'text',
  'referee', 'second_rater', 'third_rater', 'final', 'human_label', 'rater',
] as const;

const CONTEXT_LINES = 4;

/** `allowedLabels`: task id → its label names (from the task files; else the labels the raters used in that task). */
export function teamworkLabelsCsv(runs: readonly TeamworkRun[], allowedLabels: ReadonlyMap<string, readonly string[]> = new Map()): string {
  const used = new Map<string, Set<string>>();
  for (const r of runs) for (const m of r.messages) if (m.labels) for (const l of [m.labels.referee.label, m.labels.second.label, m.labels.final]) if (l) used.set(r.task, (used.get(r.task) ?? new Set()).add(l));
  const rows: Array<Array<string | number>> = [];
  for (const r of runs) {
    const runId = r.run_id ?? `${r.model}/${r.task}/${r.arm}/${r.seed}`;
    r.messages.forEach((m, i) => {
      if (!m.labels) return;
      const context = r.messages.slice(Math.max(0, i - CONTEXT_LINES), i).filter((c) => c.seat !== 'system').map((c) => `${c.speaker}: ${c.text}`).join('\n');
      const allowed = allowedLabels.get(r.task) ?? [...(used.get(r.task) ?? [])].sort();
      rows.push([
        `${runId}#${m.seq}`, runId, r.model, r.task, r.dimension, r.arm, r.seed, m.seq, m.round ?? '', allowed.join(';'), context, m.text,
        m.labels.referee.label ?? '', m.labels.second.label ?? '', m.labels.third?.label ?? '', m.labels.final, '', '',
      ]);
    });
  }
  return stringify([[...TEAMWORK_LABEL_COLUMNS], ...rows.map((row) => row.map((c) => formulaSafeCell(c, typeof c === 'number')))]);
}
