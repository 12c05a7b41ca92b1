/**
 * Walks an expected JSON value and reports every place where `actual` differs: numbers within
 * max(rel·|expected|, abs), everything else exactly. Extra keys in `actual` are allowed (extensions).
 */
export function compareExpected(expected: unknown, actual: unknown, path = '$', rel = 1e-9, abs = 1e-12): string[] {
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') return [`${path}: expected ${expected}, got ${JSON.stringify(actual)}`];
    const tol = Math.max(rel * Math.abs(expected), abs);
    return Math.abs(actual - expected) <= tol ? [] : [`${path}: expected ${expected}, got ${actual} (diff ${Math.abs(actual - expected)})`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) return [`${path}: expected ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((e, i) => compareExpected(e, actual[i], `${path}[${i}]`, rel, abs));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([k, e]) =>
      k in (actual as object) ? compareExpected(e, (actual as Record<string, unknown>)[k], `${path}.${k}`, rel, abs) : [`${path}.${k}: missing`],
    );
  }
  return expected === actual ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** Number of numeric leaves in a JSON value (to show the comparison covered them all). */
export function countNumbers(value: unknown): number {
  if (typeof value === 'number') return 1;
  if (Array.isArray(value)) return value.reduce((s: number, v) => s + countNumbers(v), 0);
  if (value !== null && typeof value === 'object') return Object.values(value).reduce((s: number, v) => s + countNumbers(v), 0);
  return 0;
}
