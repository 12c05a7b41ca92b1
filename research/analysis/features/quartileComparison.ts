import { mean } from '../../../lib/stats/mean';
import { standardError } from '../../../lib/stats/standardError';
import { cohenD } from '../../../lib/stats/cohenD';
import { mannWhitneyTest, type MannWhitneyMethod } from '../../../lib/stats/mannWhitney';
import { benjaminiHochbergAdjust, holmAdjust } from '../../../lib/stats/adjustP';
import { SPEAKERS, featureColumns, type FeatureKind, type SessionFeatures } from './sessionFeatures';
import type { Quartiles } from '../productivity/quartiles';

export interface FeatureComparison {
  top_mean: number;
  bottom_mean: number;
  /** Standard errors of the two means (ddof = 1; null below two sessions) — for ±1 SEM bars. */
  top_sem: number | null;
  bottom_sem: number | null;
  cohen_d: number | null;
  /** Mann-Whitney two-sided p: exact (no ties, a group ≤ 8) or asymptotic with continuity correction, as scipy's method='auto'. */
  p: number | null;
  u: number | null;
  /** How p was computed. */
  method: MannWhitneyMethod | null;
  /** Sessions of each quartile that have the value (a rate is missing when the speaker has no turns). */
  n_top: number;
  n_bottom: number;
  /** p adjusted over the table's features (statsmodels multipletests 'holm' / 'fdr_bh'). */
  p_holm: number | null;
  p_bh: number | null;
}

/** Every "speaker:label" feature compared between the top and bottom Pz quartiles, keys sorted. */
export function compareQuartiles(f: SessionFeatures, q: Quartiles, kind: FeatureKind): Record<string, FeatureComparison> {
  const out: Record<string, FeatureComparison> = {};
  if (q.top.length === 0 || q.bottom.length === 0) return out;
  const speakerOrder = [...SPEAKERS].map((name, i) => ({ name, i })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const L = f.labels.length;
  const topColumns = featureColumns(f, kind, q.top);
  const bottomColumns = featureColumns(f, kind, q.bottom);
  for (const { name, i } of speakerOrder) {
    f.labels.forEach((label, l) => {
      const top = present(topColumns[i * L + l]!);
      const bottom = present(bottomColumns[i * L + l]!);
      const mw = mannWhitneyTest(top, bottom);
      out[`${name}:${label}`] = {
        top_mean: mean(top),
        bottom_mean: mean(bottom),
        top_sem: top.length > 1 ? standardError(top) : null,
        bottom_sem: bottom.length > 1 ? standardError(bottom) : null,
        cohen_d: cohenD(top, bottom),
        p: mw?.p ?? null,
        u: mw?.u ?? null,
        method: mw?.method ?? null,
        n_top: top.length,
        n_bottom: bottom.length,
        p_holm: null,
        p_bh: null,
      };
    });
  }
  const rows = Object.values(out);
  const holm = holmAdjust(rows.map((r) => r.p));
  const bh = benjaminiHochbergAdjust(rows.map((r) => r.p));
  rows.forEach((r, k) => ((r.p_holm = holm[k]!), (r.p_bh = bh[k]!)));
  return out;
}

/** The values that are not missing (NaN). */
export function present(values: Float64Array): Float64Array {
  return values.every((v) => !Number.isNaN(v)) ? values : values.filter((v) => !Number.isNaN(v));
}
