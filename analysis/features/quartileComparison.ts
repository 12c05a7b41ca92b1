import { mean } from '../stats/mean';
import { standardError } from '../stats/standardError';
import { cohenD } from '../stats/cohenD';
import { mannWhitneyU } from '../stats/mannWhitneyU';
import { SPEAKERS, featureValues, type FeatureKind, type SessionFeatures } from './sessionFeatures';
import type { Quartiles } from '../productivity/quartiles';

export interface FeatureComparison {
  top_mean: number;
  bottom_mean: number;
  /** Standard errors of the two means (ddof = 1; null below two sessions) — for ±1 SEM bars. */
  top_sem: number | null;
  bottom_sem: number | null;
  cohen_d: number | null;
  /** Mann-Whitney two-sided asymptotic p (scipy's default continuity correction). */
  p: number | null;
  u: number | null;
}

/** Every "speaker:label" feature compared between the top and bottom Pz quartiles, keys sorted. */
export function compareQuartiles(f: SessionFeatures, q: Quartiles, kind: FeatureKind): Record<string, FeatureComparison> {
  const out: Record<string, FeatureComparison> = {};
  if (q.top.length === 0 || q.bottom.length === 0) return out;
  const speakerOrder = [...SPEAKERS].map((name, i) => ({ name, i })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const { name, i } of speakerOrder) {
    f.labels.forEach((label, l) => {
      const top = featureValues(f, i, l, kind, q.top);
      const bottom = featureValues(f, i, l, kind, q.bottom);
      const mw = mannWhitneyU(top, bottom);
      out[`${name}:${label}`] = {
        top_mean: mean(top),
        bottom_mean: mean(bottom),
        top_sem: top.length > 1 ? standardError(top) : null,
        bottom_sem: bottom.length > 1 ? standardError(bottom) : null,
        cohen_d: cohenD(top, bottom),
        p: mw?.p ?? null,
        u: mw?.u ?? null,
      };
    });
  }
  return out;
}
