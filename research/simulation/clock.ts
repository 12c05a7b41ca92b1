/**
 * A wall clock with sub-millisecond resolution that is comparable across processes on one machine
 * (performance.timeOrigin is the process's wall-clock start; performance.now() is monotonic since).
 * Used to timestamp provider tokens in one process and their arrival in another.
 */
export function preciseNowMs(): number {
  return performance.timeOrigin + performance.now();
}
