import { zScores } from '../../../lib/stats/zScores';
import { gather } from './taskGroups';

export const QUADRANTS = ['productive_success', 'costly_success', 'cheap_failure', 'unproductive_failure'] as const;
export type Quadrant = (typeof QUADRANTS)[number];

export interface Productivity {
  zQuality: Float64Array;
  zCost: Float64Array;
  /** Pz = z(Q) − z(C); NaN for unscored sessions. */
  pz: Float64Array;
}

/**
 * Within-task standardisation: z(Q) and z(C) computed among the scored sessions of each task (sample
 * SD, SD 0 → z 0), and Pz = z(Q) − z(C). Unscored sessions stay NaN, and so does the session of a task
 * with one scored session: its SD is undefined (ddof = 1), so it has no z, no Pz and no quadrant.
 */
export function withinTaskProductivity(groups: Map<string, Int32Array>, quality: Float64Array, cost: Float64Array): Productivity {
  const n = quality.length;
  const out: Productivity = { zQuality: new Float64Array(n).fill(NaN), zCost: new Float64Array(n).fill(NaN), pz: new Float64Array(n).fill(NaN) };
  for (const idx of groups.values()) {
    if (idx.length < 2) continue;
    const zq = zScores(gather(quality, idx));
    const zc = zScores(gather(cost, idx));
    for (let k = 0; k < idx.length; k++) {
      const i = idx[k]!;
      out.zQuality[i] = zq[k]!;
      out.zCost[i] = zc[k]!;
      out.pz[i] = zq[k]! - zc[k]!;
    }
  }
  return out;
}

/**
 * Quadrant by the signs of z(Q), z(C): z_q ≥ 0 & z_c < 0 productive success; z_q ≥ 0 & z_c ≥ 0 costly
 * success; z_q < 0 & z_c < 0 cheap failure; z_q < 0 & z_c ≥ 0 unproductive failure.
 */
export function quadrantOf(zQuality: number, zCost: number): Quadrant {
  if (Number.isNaN(zQuality) || Number.isNaN(zCost)) throw new Error('quadrantOf: z is undefined (use quadrantOrNull)');
  if (zQuality >= 0) return zCost < 0 ? 'productive_success' : 'costly_success';
  return zCost < 0 ? 'cheap_failure' : 'unproductive_failure';
}

/** The quadrant, or null when z is undefined (unscored, or alone in its task). */
export function quadrantOrNull(zQuality: number, zCost: number): Quadrant | null {
  return Number.isNaN(zQuality) || Number.isNaN(zCost) ? null : quadrantOf(zQuality, zCost);
}
