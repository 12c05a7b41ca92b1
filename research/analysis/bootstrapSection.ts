import type { ConfidenceInterval } from '../../lib/stats/bootstrapCi';
import { spearmanInterval, spearmanPlan, spearmanReplicates } from '../../lib/stats/bootstrapSpearmanCi';
import { runReplicates } from './parallel/runReplicates';
import { bootstrapMeanDifferencesCi } from '../../lib/stats/bootstrapMeanDifferenceCi';
import { gather } from './productivity/taskGroups';
import { featureValues, SPEAKERS, type SessionFeatures } from './features/sessionFeatures';
import type { Quartiles } from './productivity/quartiles';
import { present } from './features/quartileComparison';
import { startQuartileDifferenceResamplingPz } from './features/quartileBootstrap';

/** Headline dialogue features whose top-minus-bottom quartile difference gets a bootstrap interval. */
export const BOOTSTRAPPED_FEATURES = ['agent:probing', 'user:probing', 'agent:any_friction', 'user:any_friction', 'combined:any_friction'];

export interface BootstrapSection {
  replicates: number;
  seed: number;
  /** Per task: 95% interval of ρ(Q, C), resampling the task's scored sessions. */
  spearman_qc: Record<string, ConfidenceInterval | null>;
  /**
   * Per headline rate feature: 95% interval of top_mean − bottom_mean, resampling within each quartile
   * (conditional on the observed quartile membership; kept as the named alternative).
   */
  quartile_difference: Record<string, ConfidenceInterval | null>;
  /**
   * The same difference with sessions resampled within task and Pz and the quartiles recomputed in every
   * replicate (features/quartileBootstrap.ts): the interval the report shows.
   */
  quartile_difference_resampling_pz: Record<string, ConfidenceInterval | null>;
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
  const quartile_difference_resampling_pz: BootstrapSection['quartile_difference_resampling_pz'] = {};
  if (opts.replicates > 0) {
    // every task's bootstrap of ρ(Q, C) as one job (bootstrapSpearmanCi per task, the tasks split over threads)
    const tasks = [...groups].filter(([, idx]) => idx.length >= 3);
    const plan = spearmanPlan(tasks.map(([, idx]) => [gather(quality, idx), gather(cost, idx)] as const), opts.replicates);
    const R = opts.replicates;
    const rho = runReplicates('spearman', spearmanReplicates, plan, opts.seed, tasks.length * R, 1, plan.start[tasks.length]! / Math.max(1, tasks.length));
    for (const [task] of groups) spearman_qc[task] = null;
    tasks.forEach(([task], t) => (spearman_qc[task] = spearmanInterval(rho.subarray(t * R, (t + 1) * R))));
    if (haveAnnotations) {
      const keys: string[] = [];
      const all: Float64Array[] = [];
      const top: Float64Array[] = [];
      const bottom: Float64Array[] = [];
      for (const key of BOOTSTRAPPED_FEATURES) {
        const [speaker, label] = key.split(':') as [string, string];
        const l = f.labels.indexOf(label);
        if (l < 0) continue;
        const sp = SPEAKERS.indexOf(speaker as (typeof SPEAKERS)[number]);
        keys.push(key);
        all.push(featureValues(f, sp, l, 'rate', Int32Array.from({ length: f.nSessions }, (_, i) => i)));
        top.push(present(featureValues(f, sp, l, 'rate', q.top)));
        bottom.push(present(featureValues(f, sp, l, 'rate', q.bottom)));
      }
      // one joint resample when no rate is missing; otherwise column by column (groups of different sizes)
      const complete = top.every((c) => c.length === q.top.length) && bottom.every((c) => c.length === q.bottom.length);
      const intervals = complete ? bootstrapMeanDifferencesCi(top, bottom, opts) : top.map((t, k) => bootstrapMeanDifferencesCi([t], [bottom[k]!], opts)[0]!);
      keys.forEach((key, i) => (quartile_difference[key] = intervals[i] ?? null));
      const resampled = takePrefetched(groups, quality, cost, f, opts) ?? startQuartileDifferenceResamplingPz(groups, quality, cost, all, opts).join();
      keys.forEach((key, i) => (quartile_difference_resampling_pz[key] = resampled[i] ?? null));
    }
  }
  return { replicates: opts.replicates, seed: opts.seed, spearman_qc, quartile_difference, quartile_difference_resampling_pz };
}

type Prefetched = { groups: Map<string, Int32Array>; quality: Float64Array; cost: Float64Array; replicates: number; seed: number; join(): Array<ConfidenceInterval | null> };
const prefetched = new WeakMap<SessionFeatures, Prefetched>();

/** The headline rate features of every session, in BOOTSTRAPPED_FEATURES order (those whose label exists). */
function resamplingColumns(f: SessionFeatures): Float64Array[] {
  const everyone = Int32Array.from({ length: f.nSessions }, (_, i) => i);
  const columns: Float64Array[] = [];
  for (const key of BOOTSTRAPPED_FEATURES) {
    const [speaker, label] = key.split(':') as [string, string];
    const l = f.labels.indexOf(label);
    if (l >= 0) columns.push(featureValues(f, SPEAKERS.indexOf(speaker as (typeof SPEAKERS)[number]), l, 'rate', everyone));
  }
  return columns;
}

/**
 * Starts the largest bootstrap of the section (quartile differences with Pz recomputed) on the worker
 * threads as soon as its inputs exist, so it runs while the calling thread computes everything else;
 * bootstrapSection then joins it (with the same arguments) instead of starting it. Same numbers either way.
 */
export function prefetchBootstrapSection(
  groups: Map<string, Int32Array>,
  quality: Float64Array,
  cost: Float64Array,
  f: SessionFeatures,
  haveAnnotations: boolean,
  options: { bootstrapReplicates: number; bootstrapSeed: number },
): void {
  if (!haveAnnotations || options.bootstrapReplicates <= 0) return;
  const opts = { replicates: options.bootstrapReplicates, seed: options.bootstrapSeed };
  const pending = startQuartileDifferenceResamplingPz(groups, quality, cost, resamplingColumns(f), opts);
  prefetched.set(f, { groups, quality, cost, ...opts, join: () => pending.join() });
}

function takePrefetched(
  groups: Map<string, Int32Array>,
  quality: Float64Array,
  cost: Float64Array,
  f: SessionFeatures,
  opts: { replicates: number; seed: number },
): Array<ConfidenceInterval | null> | null {
  const job = prefetched.get(f);
  if (!job) return null;
  prefetched.delete(f);
  const same = job.groups === groups && job.quality === quality && job.cost === cost && job.replicates === opts.replicates && job.seed === opts.seed;
  return same ? job.join() : null;
}
