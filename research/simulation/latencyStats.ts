/**
 * Small summary statistics for latency samples (milliseconds). Percentiles use the nearest-rank
 * method on a sorted copy: p-th percentile = the value at rank ceil(p/100 · n) (1-based), which is
 * what load-testing tools usually report and never interpolates a value that was not observed.
 */

export interface LatencySummary {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function percentile(sortedAscending: readonly number[], p: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sortedAscending.length));
  return sortedAscending[Math.min(rank, sortedAscending.length) - 1]!;
}

export function summarizeLatencies(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((acc, x) => acc + x, 0);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

export function formatMs(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(1)} ms` : 'n/a';
}

export function formatSummary(s: LatencySummary): string {
  return `n=${s.count} p50=${formatMs(s.p50)} p90=${formatMs(s.p90)} p99=${formatMs(s.p99)} max=${formatMs(s.max)}`;
}

/** The median (mean of the two middle values for an even count), for a handful of per-round ratios. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
