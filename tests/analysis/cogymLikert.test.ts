import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';

// Real data (CC-BY-SA-4.0, see the ATTRIBUTION.md beside it) converted into the export layout: no judge
// score and no tokens, so only the Likert section is computed. Reference values:
//   r = scipy.stats.spearmanr(x[ok], y[ok]) over pairwise-complete rows of the CSV columns
const source = fileURLToPath(new URL('../fixtures/analysis-reference/cogym/cogym_real_ratings_228.csv', import.meta.url));

describe('CoGym real ratings: Likert correlations reproduce the published figures', () => {
  const rows = parse(readFileSync(source, 'utf8'), { columns: true }) as Array<Record<string, string>>;
  const dir = mkdtempSync(join(tmpdir(), 'tandem-cogym-'));
  writeFileSync(
    join(dir, 'sessions.csv'),
    stringify(
      rows.map((r) => [r.id, r.task, '', 0, 0, 0, 0, r.outcomeRating, r.agentRating, r.communicationRating]),
      { header: true, columns: ['session_id', 'task', 'quality', 'user_tokens', 'agent_tokens', 'user_turns', 'agent_turns', 'likert_outcome', 'likert_agent', 'likert_communication'] },
    ),
  );
  const summary = analyzeDataset(loadDataset(dir), { ...DEFAULT_OPTIONS, bootstrapReplicates: 0 }).summary;

  it('has 228 sessions, none scored', () => {
    expect(summary.n_sessions).toBe(228);
    expect(summary.n_scored).toBe(0);
  });
  it.each([
    // [pair, n, rho, p] from scipy.stats.spearmanr on the pairwise-complete rows
    ['agent|outcome', 191, 0.5997078249688065, 4.8720866310192297e-20],
    ['agent|communication', 50, 0.5856694490469102, 7.897775052515684e-6],
    ['communication|outcome', 50, 0.6147690768118014, 2.036994072509135e-6],
  ])('%s', (pair, n, rho, p) => {
    const c = summary.likert_correlations[pair]!;
    expect(c.n).toBe(n);
    expect(Math.abs(c.rho - rho)).toBeLessThan(1e-12);
    expect(Math.abs(c.p - p) / p).toBeLessThan(1e-9);
  });
});
