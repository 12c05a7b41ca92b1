import { cohenKappa } from './cohenKappa';
import type { Estimate } from './estimate';
import { microF1 } from './microF1';
import { pairwiseComplete } from './pairwiseComplete';
import { perLabelKappa } from './perLabelKappa';
import { FRICTION_LABELS, GROUNDING_ACTS, type FrictionLabel, type GroundingAct } from '../../../common/labels';

/** One utterance's labels from one rater. */
export interface UtteranceLabels {
  friction: FrictionLabel;
  grounding: ReadonlySet<GroundingAct>;
}

export interface LabelStatistics {
  kappa: Estimate;
  f1: Estimate;
  /** utterances carrying the label, per rater */
  count_a: number;
  count_b: number;
}

export interface LabelAgreement {
  /** utterances both raters labelled */
  n: number;
  grounding: { micro_f1: Estimate; labels: Record<GroundingAct, LabelStatistics> };
  /** single-label: `kappa` is the unweighted kappa over the six categories, micro-F1 = accuracy */
  friction: { kappa: Estimate; micro_f1: Estimate; labels: Record<FrictionLabel, LabelStatistics> };
}

/**
 * Agreement between two annotators on the utterances both labelled (pairwise complete, keyed by
 * session and turn): per-label binary kappa and F1 plus micro-F1 for the multi-label grounding acts
 * and for the single-label friction scheme (one-vs-rest), and friction's multi-class kappa.
 */
export function labelAgreement(
  a: ReadonlyMap<string, UtteranceLabels>,
  b: ReadonlyMap<string, UtteranceLabels>,
): LabelAgreement {
  const paired = pairwiseComplete(a, b);
  const groundingA = paired.a.map((u) => u.grounding as ReadonlySet<string>);
  const groundingB = paired.b.map((u) => u.grounding as ReadonlySet<string>);
  const frictionA = paired.a.map((u) => new Set<string>([u.friction]));
  const frictionB = paired.b.map((u) => new Set<string>([u.friction]));
  return {
    n: paired.keys.length,
    grounding: {
      micro_f1: microF1(groundingA, groundingB, GROUNDING_ACTS),
      labels: perLabel(groundingA, groundingB, GROUNDING_ACTS),
    },
    friction: {
      kappa: cohenKappa(
        paired.a.map((u) => u.friction),
        paired.b.map((u) => u.friction),
        FRICTION_LABELS,
      ),
      micro_f1: microF1(frictionA, frictionB, FRICTION_LABELS),
      labels: perLabel(frictionA, frictionB, FRICTION_LABELS),
    },
  };
}

function perLabel<L extends string>(
  a: readonly ReadonlySet<string>[],
  b: readonly ReadonlySet<string>[],
  labels: readonly L[],
): Record<L, LabelStatistics> {
  const kappas = perLabelKappa(a, b, labels);
  const out = {} as Record<L, LabelStatistics>;
  for (const label of labels) {
    out[label] = {
      kappa: kappas[label],
      f1: microF1(a, b, [label]),
      count_a: a.filter((s) => s.has(label)).length,
      count_b: b.filter((s) => s.has(label)).length,
    };
  }
  return out;
}
