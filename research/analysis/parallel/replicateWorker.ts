import { parentPort } from 'node:worker_threads';
import { KERNELS } from './kernels';
import { readClaimedRanges, type AnnotationRangesJob } from '../input/parallelAnnotations';
import { DONE, FAILED, FAILED_FROM, FAILED_TO, NEXT, type ReplicateJob } from './runReplicates';

/**
 * A worker thread of runReplicates: for each job posted, claims chunks of its units from the shared counter
 * like the calling thread does. A kernel that throws marks its chunk failed so the calling thread redoes it
 * (and reports the error); the worker then stops taking work.
 */
let broken = false;
// The threads also read annotations.csv's ranges while the dataset loads (input/parallelAnnotations.ts).
parentPort!.on('message', (job: ReplicateJob | AnnotationRangesJob) => ('kind' in job ? readClaimedRanges(job) : replicate(job)));

function replicate(job: ReplicateJob): void {
  if (broken) return;
  const kernel = KERNELS[job.kernel];
  let from = -1;
  let to = -1;
  try {
    for (;;) {
      from = Atomics.add(job.control, NEXT, job.chunk);
      if (from >= job.units) return;
      to = Math.min(job.units, from + job.chunk);
      kernel(job.plan as never, job.seed, from, to, job.out);
      Atomics.add(job.control, DONE, to - from);
      Atomics.notify(job.control, DONE);
    }
  } catch {
    broken = true;
    // one failed chunk is reported at a time: wait until the calling thread has taken the last one (2 = being written)
    while (Atomics.compareExchange(job.control, FAILED, 0, 2) !== 0) Atomics.wait(job.control, FAILED, Atomics.load(job.control, FAILED), 100);
    Atomics.store(job.control, FAILED_FROM, from);
    Atomics.store(job.control, FAILED_TO, to);
    Atomics.store(job.control, FAILED, 1);
    Atomics.notify(job.control, DONE);
  }
}
