/**
 * Reads a teamwork labels.csv (research/teamwork/results/labelsCsv.ts) back with the people's labels filled in
 * and computes the agreement of each judge with each person, and of the two judges, on the messages the
 * person labelled: n, percent agreement and Cohen's κ (unweighted, categories = the labels the task allows
 * plus any used) — the same cohenKappa as the study-dialogue agreement. A human label the task does not
 * allow names its line and column.
 */
import { z } from 'zod';
import { cohenKappa } from '../cohenKappa';
import { InputError } from './inputError';
import { readCsvTable } from './readCsvTable';

const REQUIRED = ['message_id', 'task', 'labels_allowed', 'referee', 'second_rater', 'final', 'human_label', 'rater'] as const;

const Row = z.object({
  message_id: z.string().min(1, 'message_id is empty'),
  task: z.string().min(1),
  labels_allowed: z.string(),
  referee: z.string(),
  second_rater: z.string(),
  final: z.string(),
  human_label: z.string(),
  rater: z.string(),
});

export interface TeamworkPairAgreement {
  a: string;
  b: string;
  n: number;
  percent: number | null;
  kappa: number | null;
  kappa_note?: string;
}

export interface TeamworkLabelAgreement {
  file: string;
  /** Rows a person labelled, per rater name ("human" when the rater column is empty). */
  labelled: Record<string, number>;
  pairs: TeamworkPairAgreement[];
}

const NONE = '(none)';

function pair(a: string, b: string, items: ReadonlyArray<[string, string]>): TeamworkPairAgreement {
  if (items.length === 0) return { a, b, n: 0, percent: null, kappa: null, kappa_note: 'no messages labelled by both' };
  const categories = [...new Set(items.flat())].sort();
  const same = items.filter(([x, y]) => x === y).length;
  const kappa = categories.length < 2 ? { value: null, reason: 'one and the same label throughout' } : cohenKappa(items.map((i) => i[0]), items.map((i) => i[1]), categories);
  return { a, b, n: items.length, percent: (100 * same) / items.length, kappa: kappa.value, ...(kappa.value === null ? { kappa_note: kappa.reason } : {}) };
}

export function teamworkLabelAgreement(file: string): TeamworkLabelAgreement {
  const rows = readCsvTable(file, Row, REQUIRED);
  const byRater = new Map<string, Array<{ referee: string; second: string; final: string; human: string }>>();
  for (const { line, value } of rows) {
    if (value.human_label === '') continue;
    const allowed = value.labels_allowed.split(';').map((s) => s.trim()).filter(Boolean);
    if (allowed.length > 0 && !allowed.includes(value.human_label)) {
      throw new InputError(`"${value.human_label}" is not a label of task ${value.task} (${allowed.join(', ')})`, file, line, 'human_label');
    }
    const rater = value.rater || 'human';
    const list = byRater.get(rater) ?? [];
    list.push({ referee: value.referee || NONE, second: value.second_rater || NONE, final: value.final, human: value.human_label });
    byRater.set(rater, list);
  }
  if (byRater.size === 0) throw new InputError('no row has a human_label: fill that column (and rater) first', file);
  const pairs: TeamworkPairAgreement[] = [];
  for (const [rater, list] of [...byRater].sort(([x], [y]) => x.localeCompare(y))) {
    pairs.push(pair('referee', rater, list.map((r) => [r.referee, r.human])));
    pairs.push(pair('second_rater', rater, list.map((r) => [r.second, r.human])));
    pairs.push(pair('final', rater, list.map((r) => [r.final, r.human])));
  }
  const all = [...byRater.values()].flat();
  pairs.push(pair('referee', 'second_rater', all.map((r) => [r.referee, r.second])));
  return { file, labelled: Object.fromEntries([...byRater].map(([k, v]) => [k, v.length])), pairs };
}

export function teamworkAgreementTable(report: TeamworkLabelAgreement): string {
  const lines = ['pair                         n   agreement %  kappa'];
  for (const p of report.pairs) lines.push(`${`${p.a} – ${p.b}`.padEnd(26)} ${String(p.n).padStart(4)}   ${p.percent === null ? '–'.padStart(10) : p.percent.toFixed(1).padStart(10)}  ${p.kappa === null ? `– (${p.kappa_note})` : p.kappa.toFixed(3)}`);
  return lines.join('\n');
}
