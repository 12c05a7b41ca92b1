/**
 * Indices of scored sessions (quality not NaN) grouped by task; tasks sorted by name, sessions in
 * file order within each task.
 */
export function scoredByTask(tasks: readonly string[], quality: Float64Array): Map<string, Int32Array> {
  const lists = new Map<string, number[]>();
  for (let i = 0; i < tasks.length; i++) {
    if (Number.isNaN(quality[i]!)) continue;
    const t = tasks[i]!;
    let list = lists.get(t);
    if (!list) lists.set(t, (list = []));
    list.push(i);
  }
  const names = [...lists.keys()].sort();
  return new Map(names.map((t) => [t, Int32Array.from(lists.get(t)!)]));
}

/** Picks values[indices[i]] into a new array. */
export function gather(values: ArrayLike<number>, indices: ArrayLike<number>): Float64Array {
  const out = new Float64Array(indices.length);
  for (let i = 0; i < indices.length; i++) out[i] = values[indices[i]!]!;
  return out;
}
