import { describe, it, expect } from 'vitest';
import { sessionFeatures, featureValues } from './sessionFeatures';
import type { AnnotationTable } from '../input/annotationsFile';

/** Builds an annotation table from compact rows [session, turn, speaker 0|1, friction id|-1, grounding ids]. */
function table(labels: string[], rows: Array<[number, number, number, number, number[]]>): AnnotationTable {
  const starts = [0];
  const ids: number[] = [];
  for (const r of rows) {
    ids.push(...r[4]);
    starts.push(ids.length);
  }
  return {
    size: rows.length,
    labels,
    frictionLabels: new Set(),
    session: Int32Array.from(rows.map((r) => r[0])),
    turn: Int32Array.from(rows.map((r) => r[1])),
    speaker: Uint8Array.from(rows.map((r) => r[2])),
    friction: Int32Array.from(rows.map((r) => r[3])),
    groundingStart: Uint32Array.from(starts),
    groundingIds: Uint16Array.from(ids),
  };
}

describe('sessionFeatures', () => {
  // labels: 0 probing (friction), 1 repair (grounding)
  const t = table(['probing', 'repair'], [
    // session 0, given out of turn order; 10 turns → opening = first ceil(3) turns (0,1,2)
    [0, 9, 1, 0, [1]],
    [0, 0, 0, 0, [0]], // probing as friction and as grounding: counted once
    [0, 1, 1, 0, []],
    [0, 2, 0, -1, [1]],
    [0, 3, 1, -1, []],
    [0, 4, 0, -1, []],
    [0, 5, 1, 0, []],
    [0, 6, 0, -1, []],
    [0, 7, 1, -1, []],
    [0, 8, 0, -1, []],
  ]);
  const f = sessionFeatures(t, 2);
  const L = f.labels.indexOf.bind(f.labels);

  it('sorts labels and adds any_friction', () => {
    expect(f.labels).toEqual(['any_friction', 'probing', 'repair']);
  });
  it('counts turns carrying a label per speaker, once per turn', () => {
    expect(Array.from(featureValues(f, 1, L('probing'), 'count', [0, 1]))).toEqual([3, 0]);
    expect(Array.from(featureValues(f, 0, L('probing'), 'count', [0]))).toEqual([1]);
    expect(Array.from(featureValues(f, 2, L('any_friction'), 'count', [0]))).toEqual([4]);
  });
  it('gives rates over the speaker’s turns, missing (NaN) without turns', () => {
    expect(Array.from(featureValues(f, 1, L('probing'), 'rate', [0, 1]))).toEqual([3 / 5, NaN]);
    expect(Array.from(featureValues(f, 2, L('repair'), 'rate', [0]))).toEqual([2 / 10]);
  });
  it('uses the first ceil(30%) of turns in turn order for opening rates', () => {
    // opening turns 0 (user, probing), 1 (agent, probing), 2 (user, repair)
    expect(Array.from(featureValues(f, 0, L('probing'), 'opening_rate', [0]))).toEqual([1 / 2]);
    expect(Array.from(featureValues(f, 1, L('probing'), 'opening_rate', [0]))).toEqual([1]);
    expect(Array.from(featureValues(f, 0, L('repair'), 'opening_rate', [0]))).toEqual([1 / 2]);
  });
  it('works without annotations', () => {
    const empty = sessionFeatures(null, 3);
    expect(empty.labels).toEqual(['any_friction']);
    expect(Array.from(featureValues(empty, 2, 0, 'rate', [0, 1, 2]))).toEqual([NaN, NaN, NaN]);
    expect(Array.from(featureValues(empty, 2, 0, 'count', [0, 1, 2]))).toEqual([0, 0, 0]);
  });
});
