import { spearman } from '../../../lib/stats/spearman';
import { gather } from '../productivity/taskGroups';
import type { CountedCorrelation } from '../productivity/taskCorrelations';
import { featureValues, type SessionFeatures } from './sessionFeatures';

/**
 * Per task: Spearman of the agent's probing rate (share of agent turns labelled probing) with Pz among
 * the task's scored sessions that have agent turns and a Pz (n says how many). Empty when there are no annotations or no "probing" label.
 */
export function probingPzByTask(
  f: SessionFeatures,
  groups: Map<string, Int32Array>,
  pz: Float64Array,
  haveAnnotations: boolean,
): Map<string, CountedCorrelation | null> {
  const out = new Map<string, CountedCorrelation | null>();
  const probing = f.labels.indexOf('probing');
  if (!haveAnnotations || probing < 0) return out;
  for (const [task, idx] of groups) {
    // sessions where the agent has turns (a rate) and Pz is defined
    const rate = featureValues(f, 1, probing, 'rate', idx);
    const rows = Array.from(idx).filter((i, k) => !Number.isNaN(rate[k]!) && !Number.isNaN(pz[i]!));
    const r = spearman(featureValues(f, 1, probing, 'rate', rows), gather(pz, rows));
    out.set(task, r && { n: rows.length, ...r });
  }
  return out;
}
