/**
 * Pilot sessions in a dataset (an export made with --include-pilot) are left out of the analysis unless
 * --include-pilot is given: leaving them out gives exactly the analysis of the dataset without them.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { parseAnalyzeArgs } from '../../research/analysis/analyzeFlags';

const options = { ...DEFAULT_OPTIONS, bootstrapReplicates: 0 };
const HEADER = 'session_id,task,is_pilot,quality,user_tokens,agent_tokens,user_turns,agent_turns,likert_ease';
const LIVE = ['a,t,false,3,100,400,3,3,4', 'b,t,false,4,60,300,2,2,5', 'c,t,false,2,200,900,5,5,2', 'd,t,false,5,40,200,2,2,5'];
const PILOT = 'p,t,true,1,900,9000,20,20,1';
const ANNOTATIONS = ['session_id,turn,speaker,friction,grounding', 'a,0,user,probing,acknowledgement', 'b,0,agent,none,response', 'c,1,agent,probing,', 'd,0,user,none,repeat'];

function dataset(sessionRows: string[], extra: { annotations?: string[]; quality?: string[]; messages?: string[] } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-pilot-'));
  writeFileSync(join(dir, 'sessions.csv'), `${[HEADER, ...sessionRows].join('\n')}\n`);
  if (extra.annotations) writeFileSync(join(dir, 'annotations.csv'), `${extra.annotations.join('\n')}\n`);
  if (extra.quality) writeFileSync(join(dir, 'quality.csv'), `${extra.quality.join('\n')}\n`);
  return dir;
}

describe('pilot sessions', () => {
  const pilotRows = {
    annotations: [...ANNOTATIONS, 'p,0,user,probing,repair', 'p,1,agent,none,display'],
    quality: ['session_id,quality,samples,parsed', 'p,1,3,3', 'a,3,3,3'],
  };

  it('are left out by default, with their rows in annotations.csv and quality.csv', () => {
    const withPilot = analyzeDataset(loadDataset(dataset([...LIVE, PILOT], pilotRows)), options).summary;
    const withoutPilot = analyzeDataset(
      loadDataset(dataset(LIVE, { annotations: ANNOTATIONS, quality: ['session_id,quality,samples,parsed', 'a,3,3,3'] })),
      options,
    ).summary;
    expect(withPilot.n_pilot_excluded).toBe(1);
    expect(withPilot.n_sessions).toBe(4);
    expect(Object.keys(withPilot.sessions).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect({ ...withPilot, n_pilot_excluded: 0 }).toEqual(withoutPilot);
  });

  it('are kept with --include-pilot', () => {
    const args = parseAnalyzeArgs(['dir', '--include-pilot']);
    expect(args).toMatchObject({ kind: 'run', options: { includePilot: true } });
    const summary = analyzeDataset(loadDataset(dataset([...LIVE, PILOT], pilotRows), { includePilot: true }), options).summary;
    expect(summary.n_pilot_excluded).toBe(0);
    expect(summary.n_sessions).toBe(5);
    expect(summary.sessions.p).toBeDefined();
    expect(parseAnalyzeArgs(['dir'])).toMatchObject({ kind: 'run', options: { includePilot: false } });
  });

  it('still reject rows for sessions that are in no file at all', () => {
    const dir = dataset([...LIVE, PILOT], { annotations: [...ANNOTATIONS, 'zz,0,user,none,'] });
    expect(() => loadDataset(dir)).toThrow(/annotations.csv, line 6, column "session_id": session id "zz" is not in sessions.csv/);
  });
});
