import { expect } from 'vitest';

/** Asserts |actual − expected| ≤ max(rel·|expected|, abs). Shared by the statistics tests. */
export function expectClose(actual: number | null | undefined, expected: number, rel = 1e-9, abs = 1e-12): void {
  expect(actual, `expected ${expected}, got ${actual}`).toBeTypeOf('number');
  const a = actual as number;
  const tol = Math.max(rel * Math.abs(expected), abs);
  if (!(Math.abs(a - expected) <= tol)) {
    throw new Error(`expected ${expected} ± ${tol}, got ${a} (diff ${Math.abs(a - expected)})`);
  }
}
