import type { ConfidenceInterval } from './stats/bootstrapCi';
import { bootstrapSpearmanCi } from './stats/bootstrapSpearmanCi';
import { bootstrapMeanDifferencesCi } from './stats/bootstrapMeanDifferenceCi';
import { gather } from './productivity/taskGroups';
import { featureValues, SPEAKERS, type SessionFeatures } from './features/sessionFeatures';
import type { Quartiles } from './productivity/quartiles';

/** Headline dialogue features whose top-minus-bottom quartile difference gets a bootstrap interval. */
export const BOOTSTRAPPED_FEATURES = ['agent:probing', 'user:probing', 'agent:any_friction', 'user:any_friction', 'combined:any_friction'];

export interface BootstrapSection {
  replicates: number;
  seed: number;
  /** Per task: 95% interval of ρ(Q, C), resampling the task's scored sessions. */
  spearman_qc: Record<string, ConfidenceInterval | null>;
  /** Per headline rate feature: 95% interval of top_mean − bottom_mean, resampling within each quartile. */
  quartile_difference: Record<string, ConfidenceInterval | null>;
}

/** Seeded percentile-bootstrap intervals (sessions resampled with replacement). */
export function bootstrapSection(
  groups: Map<string, Int32Array>,
  quality: Float64Array,
  cost: Float64Array,
  f: SessionFeatures,
  q: Quartiles,
  haveAnnotations: boolean,
  options: { bootstrapReplicates: number; bootstrapSeed: number },
): BootstrapSection {
  const opts = { replicates: options.bootstrapReplicates, seed: options.bootstrapSeed };
  const spearman_qc: BootstrapSection['spearman_qc'] = {};
  const quartile_difference: BootstrapSection['quartile_difference'] = {};
  if (opts.replicates > 0) {
    for (const [task, idx] of groups) spearman_qc[task] = bootstrapSpearmanCi(gather(quality, idx), gather(cost, idx), opts);
    if (haveAnnotations) {
      const keys: string[] = [];
      const top: Float64Array[] = [];
      const bottom: Float64Array[] = [];
      for (const key of BOOTSTRAPPED_FEATURES) {
        const [speaker, label] = key.split(':') as [string, string];
        const l = f.labels.indexOf(label);
        if (l < 0) continue;
        const sp = SPEAKERS.indexOf(speaker as (typeof SPEAKERS)[number]);
        keys.push(key);
        top.push(featureValues(f, sp, l, 'rate', q.top));
        bottom.push(featureValues(f, sp, l, 'rate', q.bottom));
      }
      const intervals = bootstrapMeanDifferencesCi(top, bottom, opts);
      keys.forEach((key, i) => (quartile_difference[key] = intervals[i] ?? null));
    }
  }
  return { replicates: opts.replicates, seed: opts.seed, spearman_qc, quartile_difference };
}
