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
