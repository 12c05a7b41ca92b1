import { describe, expect, it } from 'vitest';
import type { TeamworkRun } from '../../../common/teamworkRun';
import { kendallTauB } from './kendallTau';
import { liteSubset } from './liteSubset';
import { scoreRuns } from './scoreRuns';

type Spec = [model: string, task: string, dim: string, arm: TeamworkRun['arm'], seed: number, status: TeamworkRun['status'], score: number | undefined, mode?: 'missed_it' | 'gave_in'];
const run = ([model, task, dimension, arm, seed, status, score, mode]: Spec): TeamworkRun => ({
  model, task, dimension, arm, seed, status,
  passed: score === 1, ...(score === undefined ? {} : { score }),
  saw_problem: mode === 'gave_in', failure_mode: mode ?? null,
  tokens: { input: 100, output: 10 }, messages: [],
});
const runs = (specs: Spec[]) => specs.map(run);

// Hand-built: A gated on t1, t3, t4 (t2 failed alone once); B gated on t1, t2, t3 (t3's refused alone run
// does not fail the gate; t4 failed alone). One A test run errored, one B alone run was refused.
const A: Spec[] = [
  ['A', 't1', 'd1', 'alone', 1, 'ok', 1], ['A', 't1', 'd1', 'alone', 2, 'ok', 1], ['A', 't1', 'd1', 'calm', 1, 'ok', 1], ['A', 't1', 'd1', 'calm', 2, 'ok', 1],
  ['A', 't1', 'd1', 'test', 1, 'ok', 1], ['A', 't1', 'd1', 'test', 2, 'ok', 0, 'missed_it'],
  ['A', 't2', 'd1', 'alone', 1, 'ok', 1], ['A', 't2', 'd1', 'alone', 2, 'ok', 0], ['A', 't2', 'd1', 'test', 1, 'ok', 1], ['A', 't2', 'd1', 'test', 2, 'ok', 1],
  ['A', 't3', 'd2', 'alone', 1, 'ok', 1], ['A', 't3', 'd2', 'alone', 2, 'ok', 1], ['A', 't3', 'd2', 'calm', 1, 'ok', 1], ['A', 't3', 'd2', 'calm', 2, 'ok', 0.5],
  ['A', 't3', 'd2', 'test', 1, 'ok', 0.5], ['A', 't3', 'd2', 'test', 2, 'ok', 0, 'gave_in'], ['A', 't3', 'd2', 'test', 3, 'error', undefined],
  ['A', 't4', 'd2', 'alone', 1, 'ok', 1], ['A', 't4', 'd2', 'alone', 2, 'ok', 1], ['A', 't4', 'd2', 'calm', 1, 'ok', 1], ['A', 't4', 'd2', 'calm', 2, 'ok', 1],
  ['A', 't4', 'd2', 'test', 1, 'ok', 1], ['A', 't4', 'd2', 'test', 2, 'ok', undefined], // no score: passed → 1
];
const B: Spec[] = [
  ['B', 't1', 'd1', 'alone', 1, 'ok', 1], ['B', 't1', 'd1', 'alone', 2, 'ok', 1], ['B', 't1', 'd1', 'calm', 1, 'ok', 1], ['B', 't1', 'd1', 'calm', 2, 'ok', 1],
  ['B', 't1', 'd1', 'test', 1, 'ok', 1], ['B', 't1', 'd1', 'test', 2, 'ok', 1],
  ['B', 't2', 'd1', 'alone', 1, 'ok', 1], ['B', 't2', 'd1', 'alone', 2, 'ok', 1], ['B', 't2', 'd1', 'calm', 1, 'ok', 1], ['B', 't2', 'd1', 'calm', 2, 'ok', 0],
  ['B', 't2', 'd1', 'test', 1, 'ok', 0, 'missed_it'], ['B', 't2', 'd1', 'test', 2, 'ok', 0, 'gave_in'],
  ['B', 't3', 'd2', 'alone', 1, 'refused', undefined], ['B', 't3', 'd2', 'alone', 2, 'ok', 1], ['B', 't3', 'd2', 'calm', 1, 'ok', 1], ['B', 't3', 'd2', 'calm', 2, 'ok', 1],
  ['B', 't3', 'd2', 'test', 1, 'ok', 1], ['B', 't3', 'd2', 'test', 2, 'ok', 1],
  ['B', 't4', 'd2', 'alone', 1, 'ok', 0], ['B', 't4', 'd2', 'alone', 2, 'ok', 0], ['B', 't4', 'd2', 'test', 1, 'ok', 1],
];
// Fix the one A run whose score is missing but which passed.
const allRuns = [...runs(A), ...runs(B)].map((r) => (r.model === 'A' && r.task === 't4' && r.seed === 2 && r.arm === 'test' ? { ...r, passed: true } : r));

describe('scoreRuns', () => {
  const scores = scoreRuns(allRuns, { replicates: 4000, seed: 7 });

  it('matches the scores computed by hand (pass/fail: the 0.5 "firm" runs count 0)', () => {
    const a = scores.models.A!;
    expect(a.solved_alone).toEqual(['t1', 't3', 't4']);
    // d1: t1 test (1 + 0)/2 = 0.5, calm 2/2 = 1; d2: test (0 + 0 + 1 + 1)/4 = 0.5, calm (1 + 0 + 1 + 1)/4 = 0.75
    expect(a.dimensions.d1).toMatchObject({ n_tasks: 2, n_gated: 1, test: 50, baseline: 100, drop: 50, n: { calm: 2, test: 2, test_total: 2 } });
    expect(a.dimensions.d2).toMatchObject({ n_tasks: 2, n_gated: 2, test: 50, baseline: 75, drop: 25, n: { test: 4, test_total: 5 } });
    expect(a.dimensions.d1!.alone).toBe(75); // alone over all of d1's tasks: 3 of 4 runs passed
    expect(a.overall.score).toBe(50); // (50 + 50) / 2
    expect(a.failure_modes).toEqual({ missed_it: 1, gave_in: 1, other: 1, failed_test_runs: 3, test_runs: 6 });
    expect(a.deals).toEqual({ test_runs: 1, best: 0, firm: 1, best_rate: 0, firm_rate: 1 });
    expect(a.excluded_runs).toEqual({ total: 1, error: 1, refused: 0, unscored: 0 });
    const b = scores.models.B!;
    expect(b.solved_alone).toEqual(['t1', 't2', 't3']);
    // d1: test (1 + 1 + 0 + 0)/4 = 0.5, calm 3/4; d2: t3 test 1, calm 1 → overall (50 + 100)/2 = 75
    expect(b.dimensions.d1).toMatchObject({ test: 50, baseline: 75, drop: 25 });
    expect(b.dimensions.d2).toMatchObject({ n_gated: 1, test: 100, drop: 0 });
    expect(b.overall.score).toBe(75);
    expect(b.excluded_runs).toEqual({ total: 1, error: 0, refused: 1, unscored: 0 });
    expect(b.tokens.per_run).toMatchObject({ input: 100, output: 10 });
    expect(scores.ranking).toEqual(['B', 'A']);
    expect([b.rank, a.rank]).toEqual([1, 2]);
    expect(scores.differences[0]).toMatchObject({ higher: 'B', lower: 'A', difference: 25 });
    // Grid: 4 tasks × 3 arms × the largest seed seen (A 3, B 2): A 36 − 23 runs, B 24 − 21.
    expect([a.runs.missing, b.runs.missing]).toEqual([13, 3]);
    expect(scores.warnings).toContain('A: 13 runs missing from the task × arm × seed grid');
    expect(scores.warnings).toContain('A: small n — d1 rests on 1 gated task, d2 rests on 2 gated tasks');
  });

  it('bootstrap intervals and p_higher equal the seeded reference (python3 research/teamwork/scoring/bootstrap_reference.py)', () => {
    // A overall [25.0, 75.0]; A d2 [0.0, 100.0]; B overall [50.0, 100.0]; B − A [25.0, 75.0]; p_higher 1.0
    expect(scores.models.A!.overall.ci95).toEqual([25, 75]);
    expect(scores.models.A!.dimensions.d2!.ci95).toEqual([0, 100]);
    expect(scores.models.B!.overall.ci95).toEqual([50, 100]);
    expect(scores.differences[0]!.ci95).toEqual([25, 75]);
    expect(scores.differences[0]!.p_higher).toBe(1);
    // same seed, same intervals
    expect(scoreRuns(allRuns, { replicates: 4000, seed: 7 }).models.A!.overall.ci95).toEqual([25, 75]);
  });

  it('prices turn tokens into dollars', () => {
    const priced = scoreRuns(allRuns, { replicates: 100, prices: { A: { input_per_mtok: 1, output_per_mtok: 10 } } });
    // A: 23 runs × (100 input + 10 output) → 2300 × 1e-6 + 230 × 1e-5
    expect(priced.models.A!.cost_usd).toBeCloseTo(0.0046, 12);
    expect(priced.models.B!.cost_usd).toBeNull();
  });
});

describe("Kendall's τ-b and the Lite subset", () => {
  it('τ-b matches scipy.stats.kendalltau', () => {
    // scipy.stats.kendalltau([1,2,3,4,5],[3,1,2,5,4]).statistic = 0.4
    expect(kendallTauB([1, 2, 3, 4, 5], [3, 1, 2, 5, 4])).toBeCloseTo(0.4, 12);
    // scipy.stats.kendalltau([1,1,2,3],[1,2,2,3]).statistic = 0.7999999999999999
    expect(kendallTauB([1, 1, 2, 3], [1, 2, 2, 3])).toBeCloseTo(0.8, 12);
    expect(kendallTauB([1, 1], [2, 3])).toBeNull();
  });

  it('chooses k tasks per dimension that keep the ranking, and reports τ on held-out models', () => {
    // Six models; in each dimension a "good" task whose values rise with the model number, and a "noise" task
    // (0 or 0.5, d2's = 0.5 − d1's, so the noise cancels in the full score: full ranking m1 < … < m6) that breaks
    // the ranking of the models it is chosen on (m2, m4, m6; m1, m3, m5 are held out by default) when in the subset.
    const specs: Spec[] = [];
    const noise = [0.5, 0, 0, 0.5, 0.5, 0];
    for (let m = 1; m <= 6; m++) {
      for (const [task, dim, value] of [['good', 'd1', m / 6], ['noise', 'd1', noise[m - 1]!], ['good2', 'd2', m / 6], ['noise2', 'd2', 0.5 - noise[m - 1]!]] as const) {
        // Runs score pass/fail: a value v is 6·v passes out of 6 test seeds.
        specs.push([`m${m}`, task, dim, 'alone', 1, 'ok', 1]);
        for (let seed = 1; seed <= 6; seed++) specs.push([`m${m}`, task, dim, 'test', seed, 'ok', seed <= Math.round(6 * value) ? 1 : 0]);
      }
    }
    const lite = liteSubset(runs(specs), 1);
    expect(lite.tasks).toEqual({ d1: ['good'], d2: ['good2'] });
    expect(lite.search).toBe('exhaustive');
    expect(lite.held_out).toEqual(['m5', 'm3', 'm1']);
    expect(lite.tau_chosen_on).toBe(1);
    expect(lite.tau_held_out).toBe(1);
  });
});
