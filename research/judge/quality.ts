/**
 * Session quality Q: the median of the parsed judge scores of its k samples (parse failures and
 * transport failures are left out; no parsed score → null). With an even number of parsed scores
 * the median is the mean of the middle two, so it may end in .5.
 */
export function medianScore(scores: ReadonlyArray<number | null>): number | null {
  const parsed = scores.filter((s): s is number => s !== null).sort((a, b) => a - b);
  if (parsed.length === 0) return null;
  const mid = Math.floor(parsed.length / 2);
  return parsed.length % 2 === 1 ? (parsed[mid] as number) : ((parsed[mid - 1] as number) + (parsed[mid] as number)) / 2;
}
