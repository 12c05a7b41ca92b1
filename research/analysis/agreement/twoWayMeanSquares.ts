/** Mean squares of a two-way ANOVA without replication (n targets × k raters, one rating per cell). */
export interface TwoWayMeanSquares {
  /** targets (rows) */
  n: number;
  /** raters (columns) */
  k: number;
  /** between targets: k·Σ(row mean − grand mean)² / (n − 1) */
  rows: number;
  /** between raters: n·Σ(column mean − grand mean)² / (k − 1) */
  columns: number;
  /** residual: (SS_total − SS_rows − SS_columns) / ((n − 1)(k − 1)) */
  error: number;
  /** within targets (one-way model): (SS_columns + SS_error) / (n(k − 1)) */
  within: number;
}

/**
 * Two-way ANOVA mean squares for a complete ratings matrix `matrix[target][rater]`, the inputs of
 * every intraclass correlation form. Requires n ≥ 2 targets and k ≥ 2 raters, no missing cells.
 * Reference: McGraw & Wong (1996) Psychol. Methods 1(1):30–46, Table 2; numpy twin in
 * tests/fixtures/agreement/reference.py `mean_squares`.
 */
export function twoWayMeanSquares(matrix: readonly (readonly number[])[]): TwoWayMeanSquares {
  const n = matrix.length;
  const k = matrix[0]?.length ?? 0;
  if (n < 2 || k < 2) throw new Error(`twoWayMeanSquares: need ≥ 2 targets and ≥ 2 raters, got ${n}×${k}`);
  let total = 0;
  for (const row of matrix) {
    if (row.length !== k) throw new Error('twoWayMeanSquares: ragged matrix');
    for (const v of row) {
      if (!Number.isFinite(v)) throw new Error(`twoWayMeanSquares: non-finite rating ${v}`);
      total += v;
    }
  }
  const grand = total / (n * k);
  const columnMeans = new Array<number>(k).fill(0);
  let ssRows = 0;
  let ssTotal = 0;
  for (const row of matrix) {
    let rowSum = 0;
    row.forEach((v, j) => {
      rowSum += v;
      columnMeans[j]! += v / n;
      ssTotal += (v - grand) ** 2;
    });
    ssRows += k * (rowSum / k - grand) ** 2;
  }
  let ssColumns = 0;
  for (const m of columnMeans) ssColumns += n * (m - grand) ** 2;
  // rounding can leave a tiny negative residual when the fit is exact
  const ssError = Math.max(0, ssTotal - ssRows - ssColumns);
  return {
    n,
    k,
    rows: ssRows / (n - 1),
    columns: ssColumns / (k - 1),
    error: ssError / ((n - 1) * (k - 1)),
    within: (ssColumns + ssError) / (n * (k - 1)),
  };
}
