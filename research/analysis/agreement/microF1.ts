import { defined, undefinedBecause, type Estimate } from './estimate';

/**
 * Micro-averaged F1 between two raters' label sets: true positives (label in both), false
 * positives (only in b) and false negatives (only in a) are pooled over all items and the given
 * labels, F1 = 2·TP / (2·TP + FP + FN). Symmetric in a and b. With one label it is that label's
 * F1; for single-label schemes over all labels it equals accuracy. Null when no label occurs.
 * Reference: sklearn.metrics.f1_score(A, B, average='micro') on binarised label matrices;
 * Manning, Raghavan & Schütze (2008) §13.6.
 */
export function microF1(
  a: readonly ReadonlySet<string>[],
  b: readonly ReadonlySet<string>[],
  labels: readonly string[],
): Estimate {
  if (a.length !== b.length) throw new Error(`microF1: length mismatch ${a.length} vs ${b.length}`);
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  a.forEach((setA, i) => {
    const setB = b[i]!;
    for (const label of labels) {
      const inA = setA.has(label);
      const inB = setB.has(label);
      if (inA && inB) truePositives++;
      else if (inB) falsePositives++;
      else if (inA) falseNegatives++;
    }
  });
  const denominator = 2 * truePositives + falsePositives + falseNegatives;
  if (denominator === 0) {
    return undefinedBecause(a.length === 0 ? 'no items labelled by both' : 'no label used by either rater');
  }
  return defined((2 * truePositives) / denominator);
}
