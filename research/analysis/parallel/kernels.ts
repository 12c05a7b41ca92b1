import { quartileReplicates } from '../features/quartileBootstrap';
import { resampledMeansReplicates } from '../conditions/resampledMeans';
import { spearmanReplicates } from '../../../lib/stats/bootstrapSpearmanCi';
import { permutationTerms } from '../conditions/stratified';
import type { KernelName, ReplicateKernel } from './runReplicates';

/** Every kernel a worker thread can run, by the name runReplicates is given. */
export const KERNELS = {
  quartileDifference: quartileReplicates,
  resampledMeans: resampledMeansReplicates,
  spearman: spearmanReplicates,
  stratifiedPermutation: permutationTerms,
} satisfies Record<KernelName, ReplicateKernel<never>>;
