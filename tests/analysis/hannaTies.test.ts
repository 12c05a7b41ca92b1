import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { expectClose } from '../support/expectClose';

// Real averaged ratings (HANNA, MIT licence, tests/fixtures/analysis-reference/hanna/). Reference:
// `python3 tests/fixtures/analysis-reference/hanna/make_hanna.py` — z with math.fsum(x)/n means,
// ρ = scipy.stats.spearmanr(pz_weighted, pz_total_turns).statistic.
const dir = fileURLToPath(new URL('../fixtures/analysis-reference/hanna/', import.meta.url));
interface Ref {
  sessions: Record<string, { z_quality: number; z_cost: number; pz: number; quadrant: string }>;
  spearman_weighted_total_turns: number;
  n_quality_at_task_mean: number;
  plain_sum: { wrong_quadrant: string[]; spearman_weighted_total_turns: number };
}
const ref = JSON.parse(readFileSync(`${dir}/expected.json`, 'utf8')) as Ref;

describe('HANNA ratings: a quality equal to its task mean gives z = 0 exactly', () => {
  const summary = analyzeDataset(loadDataset(dir), { ...DEFAULT_OPTIONS, bootstrapReplicates: 0 }).summary;

  it('puts every one of the 1,056 sessions in the quadrant given by the exact sign', () => {
    const ids = Object.keys(ref.sessions);
    expect(ids).toHaveLength(1056);
    const wrong = ids.filter((id) => summary.sessions[id]?.quadrant !== ref.sessions[id]!.quadrant);
    expect(wrong).toEqual([]);
    // the sessions a plain sum gets wrong are the ones this checks
    expect(ref.plain_sum.wrong_quadrant.length).toBe(8);
  });

  it('has z(Q) = 0 exactly wherever the exact mean says so, and matches every z and Pz', () => {
    const atMean = Object.entries(ref.sessions).filter(([, r]) => r.z_quality === 0).map(([id]) => id);
    expect(atMean).toHaveLength(ref.n_quality_at_task_mean);
    for (const id of atMean) expect(summary.sessions[id]!.z_quality).toBe(0);
    for (const [id, r] of Object.entries(ref.sessions)) {
      expectClose(summary.sessions[id]!.z_quality, r.z_quality, 1e-12, 1e-15);
      expectClose(summary.sessions[id]!.pz, r.pz, 1e-12, 1e-15);
    }
  });

  it('keeps the exact Pz ties under total_turns (Spearman of the rankings)', () => {
    expectClose(summary.cost_definitions['weighted|total_turns'], ref.spearman_weighted_total_turns, 1e-12);
    expect(Math.abs(ref.spearman_weighted_total_turns - ref.plain_sum.spearman_weighted_total_turns)).toBeGreaterThan(1e-6);
  });
});
