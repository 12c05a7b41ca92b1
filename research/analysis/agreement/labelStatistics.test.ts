import { describe, expect, it } from 'vitest';
import { expectClose } from '../../../tests/support/expectClose';
import { microF1 } from './microF1';
import { pairwiseComplete } from './pairwiseComplete';
import { perLabelKappa } from './perLabelKappa';

// Reference (python3, tests/fixtures/agreement/reference.py):
//   for l in labs: a=[int(l in s) for s in A]; b=[int(l in s) for s in B]; r.kappa(a, b, [0, 1])
//   (cross-checked with r.kappa_check); F1 = 2TP/(2TP+FP+FN) counted by hand in the same loop.
const A = [
  ['acknowledgement'],
  ['acknowledgement', 'response'],
  ['response'],
  [],
  ['repair'],
  ['followup', 'response'],
  ['response'],
  ['acknowledgement'],
].map((l) => new Set(l));
const B = [
  ['acknowledgement'],
  ['response'],
  ['response', 'repair'],
  [],
  ['repair'],
  ['followup'],
  ['response'],
  ['response'],
].map((l) => new Set(l));
const labels = ['acknowledgement', 'response', 'repair', 'followup', 'display'] as const;

describe('perLabelKappa', () => {
  it('matches the per-label binary reference values', () => {
    const k = perLabelKappa(A, B, labels);
    expectClose(k.acknowledgement.value, 0.3846153846153846);
    expectClose(k.response.value, 0.5);
    expectClose(k.repair.value, 0.6);
    expect(k.followup.value).toBe(1);
  });

  it('gives null with a reason for a label that never occurs', () => {
    expect(perLabelKappa(A, B, labels).display).toEqual({ value: null, reason: 'label "display" never used by either rater' });
  });

  it('gives null when there are no common items', () => {
    expect(perLabelKappa([], [], labels).response).toEqual({ value: null, reason: 'no items rated by both' });
  });
});

describe('microF1', () => {
  it('pools TP/FP/FN over labels (TP 6, FP 2, FN 3 → 12/17)', () => {
    expectClose(microF1(A, B, labels).value, 0.7058823529411765);
    expectClose(microF1(B, A, labels).value, 0.7058823529411765); // symmetric
  });

  it('with one label is that label’s F1', () => {
    expectClose(microF1(A, B, ['acknowledgement']).value, 0.5);
    expectClose(microF1(A, B, ['response']).value, 0.75);
    expectClose(microF1(A, B, ['repair']).value, 0.6666666666666666);
  });

  it('equals accuracy for single-label annotations and 1 for perfect agreement', () => {
    const a = ['none', 'probing', 'none', 'reinforcement'].map((l) => new Set([l]));
    const b = ['none', 'probing', 'probing', 'none'].map((l) => new Set([l]));
    expectClose(microF1(a, b, ['none', 'probing', 'reinforcement']).value, 0.5);
    expect(microF1(A, A, labels).value).toBe(1);
  });

  it('is null when no label occurs', () => {
    expect(microF1(A, B, ['display'])).toEqual({ value: null, reason: 'no label used by either rater' });
    expect(microF1([], [], labels).reason).toBe('no items labelled by both');
  });
});

describe('pairwiseComplete', () => {
  it('keeps only items both raters rated, in key order', () => {
    const a = new Map([['s2', 2], ['s1', 1], ['s3', 3]]);
    const b = new Map([['s3', 30], ['s1', 10], ['s4', 40]]);
    expect(pairwiseComplete(a, b)).toEqual({ keys: ['s1', 's3'], a: [1, 3], b: [10, 30] });
    expect(pairwiseComplete(a, new Map()).keys).toEqual([]);
  });
});
