/**
 * How often the referee and the second rater gave the same label to the subject's messages, per
 * dimension and overall: percent agreement and Cohen's κ (unweighted, categories = every label either
 * rater used in that group; a reply naming no label counts as the category "(none)").
 */
import { cohenKappa } from '../../analysis/agreement/cohenKappa';
import type { TeamworkRun } from '../../../common/teamworkRun';

export interface AgreementFigures {
  n_messages: number;
  percent: number | null;
  kappa: number | null;
  kappa_note?: string;
  /** Disagreements the third rater settled. */
  third_rater: number;
  /** Judge replies (referee or second rater) that named none of the task's labels (kept raw in the run). */
  no_label: number;
}

const NONE = '(none)';

function figures(pairs: ReadonlyArray<[string, string]>, third: number): AgreementFigures {
  const noLabel = pairs.reduce((n, [a, b]) => n + (a === NONE ? 1 : 0) + (b === NONE ? 1 : 0), 0);
  if (pairs.length === 0) return { n_messages: 0, percent: null, kappa: null, kappa_note: 'no labelled messages', third_rater: third, no_label: 0 };
  const same = pairs.filter(([a, b]) => a === b).length;
  const categories = [...new Set(pairs.flat())].sort();
  const kappa = categories.length < 2 ? { value: null, reason: 'both raters used one and the same label throughout' } : cohenKappa(pairs.map((p) => p[0]), pairs.map((p) => p[1]), categories);
  return { n_messages: pairs.length, percent: (100 * same) / pairs.length, kappa: kappa.value, ...(kappa.value === null ? { kappa_note: kappa.reason } : {}), third_rater: third, no_label: noLabel };
}

export function judgeAgreement(runs: readonly TeamworkRun[]): { overall: AgreementFigures; dimensions: Record<string, AgreementFigures> } {
  const groups = new Map<string, { pairs: Array<[string, string]>; third: number }>();
  const all = { pairs: [] as Array<[string, string]>, third: 0 };
  for (const r of runs) {
    const g = groups.get(r.dimension) ?? { pairs: [], third: 0 };
    groups.set(r.dimension, g);
    for (const m of r.messages) {
      if (!m.labels) continue;
      const pair: [string, string] = [m.labels.referee.label ?? NONE, m.labels.second.label ?? NONE];
      g.pairs.push(pair);
      all.pairs.push(pair);
      if (m.labels.third) {
        g.third++;
        all.third++;
      }
    }
  }
  const dimensions = Object.fromEntries([...groups].sort(([a], [b]) => a.localeCompare(b)).map(([d, g]) => [d, figures(g.pairs, g.third)]));
  return { overall: figures(all.pairs, all.third), dimensions };
}
