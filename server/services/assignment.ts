/**
 * Balanced assignment: the option with the fewest (non-pilot) sessions so far, ties broken at random.
 * Pure: `counts` holds the current count per option id (missing ids count as 0); `rng` returns [0, 1).
 * Used for conditions and, when a study has several tasks, for tasks.
 */
export function assignCondition(options: readonly string[], counts: ReadonlyMap<string, number>, rng: () => number): string {
  if (options.length === 0) throw new Error('assignCondition: no options');
  let fewest = Infinity;
  let tied: string[] = [];
  for (const id of options) {
    const n = counts.get(id) ?? 0;
    if (n < fewest) {
      fewest = n;
      tied = [id];
    } else if (n === fewest) {
      tied.push(id);
    }
  }
  const pick = Math.min(tied.length - 1, Math.floor(rng() * tied.length));
  return tied[pick]!;
}

/**
 * How long a visit that has not consented holds a balanced slot: 5 minutes. Balance counts every
 * non-pilot session that consented, plus unconsented ones (still at the consent step, not declined)
 * created within this window. A bare-link visit, a bot at the consent step, or someone who closes the tab
 * stops counting after it, so it cannot starve a condition; a slow reader who consents later counts again
 * from then on. Documented in docs/data-protection.md ("Condition balance").
 */
export const UNCONSENTED_SLOT_MS = 5 * 60_000;

/** The `unconsentedSince` bound of SessionsRepo.countByCondition/countByTask for a join at `now`. */
export function balanceCountsUnconsentedSince(now: number): number {
  return now - UNCONSENTED_SLOT_MS;
}
