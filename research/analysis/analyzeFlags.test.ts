import { describe, it, expect } from 'vitest';
import { parseAnalyzeArgs } from './analyzeFlags';

describe('parseAnalyzeArgs', () => {
  it('applies defaults; --out defaults to the dataset dir', () => {
    expect(parseAnalyzeArgs(['data/x'])).toEqual({
      kind: 'run',
      dataset: 'data/x',
      out: 'data/x',
      prereg: false,
      options: { lambda: 0.5, cost: 'weighted', bootstrapReplicates: 1000, bootstrapSeed: 1, includePilot: false, includeUnconsented: false, includeSimulated: false },
    });
  });
  it('reads every flag', () => {
    const r = parseAnalyzeArgs(['d', '--out', 'o', '--lambda', '1.5', '--cost', 'user_turns', '--bootstrap', '0', '--seed', '9', '--include-pilot', '--include-simulated', '--prereg']);
    expect(r).toEqual({
      kind: 'run',
      dataset: 'd',
      out: 'o',
      prereg: true,
      options: { lambda: 1.5, cost: 'user_turns', bootstrapReplicates: 0, bootstrapSeed: 9, includePilot: true, includeUnconsented: false, includeSimulated: true },
    });
  });
  it('reads --data-dir with --prereg (where the run records its deviations from the plan)', () => {
    expect(parseAnalyzeArgs(['d', '--prereg', '--data-dir', '/srv/tandem'])).toMatchObject({ kind: 'run', prereg: true, dataDir: '/srv/tandem' });
  });
  it.each([
    [['d', '--data-dir', '/srv/tandem'], /--data-dir is for --prereg/],
    [['d', '--lambda', 'abc'], /--lambda must be a number/],
    [['d', '--lambda=-1'], /--lambda must be ≥ 0/],
    [['d', '--cost', 'dollars'], /--cost must be one of weighted, user_tokens/],
    [['d', '--bootstrap', '1.5'], /--bootstrap must be an integer/],
    [['d', '--seed', 'x'], /--seed must be a number/],
    [['d', '--colour', 'red'], /Unknown option/],
    [['a', 'b'], /expected one dataset directory/],
    [[], /missing <dataset-dir>/],
  ])('rejects %j', (argv, message) => {
    const r = parseAnalyzeArgs(argv);
    expect(r.kind).toBe('error');
    expect(r.kind === 'error' && r.message).toMatch(message);
  });
});
