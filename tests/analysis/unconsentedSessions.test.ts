/**
 * Visits that never answered the consent, in a dataset exported with --include-unconsented, are left out
 * of the analysis unless --include-unconsented: leaving them out gives exactly the analysis of the dataset
 * without them. A declined session is an answer and stays (as in the export).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { parseAnalyzeArgs } from '../../research/analysis/analyzeFlags';

const options = { ...DEFAULT_OPTIONS, bootstrapReplicates: 0 };
const HEADER = 'session_id,task,status,is_pilot,quality,user_tokens,agent_tokens,user_turns,agent_turns,likert_ease,consented_at';
const CONSENTED = [
  'a,t,completed,false,3,100,400,3,3,4,2026-11-02T09:00:01.000Z',
  'b,t,completed,false,4,60,300,2,2,5,2026-11-02T09:00:02.000Z',
  'c,t,completed,false,2,200,900,5,5,2,2026-11-02T09:00:03.000Z',
  'd,t,declined,false,,0,0,0,0,,',
];
const BARE_VISIT = 'u,t,active,false,,0,0,0,0,,';

function dataset(rows: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-unconsented-'));
  writeFileSync(join(dir, 'sessions.csv'), `${[HEADER, ...rows].join('\n')}\n`);
  return dir;
}

describe('visits that never answered the consent', () => {
  it('are left out by default and counted; a declined session stays', () => {
    const withVisit = analyzeDataset(loadDataset(dataset([...CONSENTED, BARE_VISIT])), options).summary;
    const without = analyzeDataset(loadDataset(dataset(CONSENTED)), options).summary;
    expect(withVisit.n_unconsented_excluded).toBe(1);
    expect(withVisit.n_sessions).toBe(4); // a, b, c and the declined d
    expect(withVisit.n_unscored).toBe(1);
    expect({ ...withVisit, n_unconsented_excluded: 0 }).toEqual(without);
  });

  it('are kept with --include-unconsented', () => {
    const args = parseAnalyzeArgs(['dir', '--include-unconsented']);
    expect(args).toMatchObject({ kind: 'run', options: { includeUnconsented: true } });
    expect(parseAnalyzeArgs(['dir'])).toMatchObject({ kind: 'run', options: { includeUnconsented: false } });
    const summary = analyzeDataset(loadDataset(dataset([...CONSENTED, BARE_VISIT]), { includeUnconsented: true }), options).summary;
    expect(summary.n_unconsented_excluded).toBe(0);
    expect(summary.n_sessions).toBe(5);
    expect(summary.n_unscored).toBe(2);
  });
});
