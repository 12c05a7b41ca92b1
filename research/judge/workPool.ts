/**
 * Runs jobs with at most `concurrency` in flight. When `signal` aborts, no new job starts; jobs
 * already running are awaited (they receive the same signal and finish quickly), so everything
 * that completed is kept.
 */
export async function runPool<T>(
  jobs: readonly T[],
  concurrency: number,
  worker: (job: T, index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ started: number; interrupted: boolean }> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, jobs.length)) }, async () => {
    while (next < jobs.length && !signal?.aborted) {
      const index = next++;
      await worker(jobs[index] as T, index);
    }
  });
  await Promise.all(lanes);
  return { started: next, interrupted: Boolean(signal?.aborted) };
}
