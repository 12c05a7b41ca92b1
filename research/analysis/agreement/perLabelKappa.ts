import { cohenKappa } from './cohenKappa';
import type { Estimate } from './estimate';

/**
 * Per-label binary Cohen's kappa for multi-label annotations: for each label, every item becomes
 * present (1) / absent (0) for each rater, and κ is computed on the categories {0, 1}. A label that
 * neither rater (or only one rater, on every item) used has chance agreement 1 → null with a reason.
 * Reference: Cohen (1960); per-label binary kappa as in sklearn.metrics.cohen_kappa_score on
 * MultiLabelBinarizer columns. Single-label schemes pass one-element sets (one-vs-rest).
 */
export function perLabelKappa<L extends string>(
  a: readonly ReadonlySet<string>[],
  b: readonly ReadonlySet<string>[],
  labels: readonly L[],
): Record<L, Estimate> {
  if (a.length !== b.length) throw new Error(`perLabelKappa: length mismatch ${a.length} vs ${b.length}`);
  const out = {} as Record<L, Estimate>;
  for (const label of labels) {
    const presentA = a.map((set) => (set.has(label) ? 1 : 0));
    const presentB = b.map((set) => (set.has(label) ? 1 : 0));
    const kappa = cohenKappa(presentA, presentB, [0, 1]);
    const neverUsed = kappa.value === null && a.length > 0 && !presentA.includes(1) && !presentB.includes(1);
    out[label] = neverUsed ? { value: null, reason: `label "${label}" never used by either rater` } : kappa;
  }
  return out;
}
