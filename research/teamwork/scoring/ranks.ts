/**
 * Ranks that ties share: complete models by overall score (equal scores share a rank: 1, 1, 3); models whose
 * overall is undefined (a dimension without a gated task) come after every complete model, unranked (null).
 */
const TIE = 1e-9;

export function sharedRanks(models: readonly string[], score: (m: string) => number | null): { order: string[]; ranks: Record<string, number | null> } {
  const complete = models.filter((m) => score(m) !== null).sort((a, b) => score(b)! - score(a)! || a.localeCompare(b));
  const incomplete = models.filter((m) => score(m) === null).sort((a, b) => a.localeCompare(b));
  const ranks: Record<string, number | null> = {};
  complete.forEach((m, i) => {
    const previous = complete[i - 1];
    ranks[m] = previous !== undefined && Math.abs(score(previous)! - score(m)!) <= TIE ? ranks[previous]! : i + 1;
  });
  for (const m of incomplete) ranks[m] = null;
  return { order: [...complete, ...incomplete], ranks };
}
