import { quartileReplicates } from '../features/quartileBootstrap';
import type { KernelName, ReplicateKernel } from './runReplicates';

/** Every kernel a worker thread can run, by the name runReplicates is given. */
export const KERNELS = {
  quartileDifference: quartileReplicates,
} satisfies Record<KernelName, ReplicateKernel<never>>;
