import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../common/tokens';
import { DatasetError } from '../input/datasetError';
import { costByOrigin } from './costByOrigin';

const rows = [
  { session_id: 's1', role: 'user', text: 'Hi', tokens: 1 },
  { session_id: 's1', role: 'assistant', text: 'a', tokens: 10, origin: 'model', assistant_mode: 'review', edit_distance: 0, wait_ms: 1000 },
  { session_id: 's1', role: 'assistant', text: 'b', tokens: 20, origin: 'model_edited', assistant_mode: 'review', edit_distance: 4, wait_ms: 3000 },
  { session_id: 's2', role: 'assistant', text: 'c', tokens: 30, origin: 'model_edited', assistant_mode: 'review', edit_distance: 10, wait_ms: 5000 },
  { session_id: 's2', role: 'assistant', text: 'd', tokens: 5, origin: 'wizard', assistant_mode: 'wizard', edit_distance: null, wait_ms: 8000 },
  { session_id: 's2', role: 'assistant', text: 'e', tokens: 7, origin: 'fallback', assistant_mode: 'review', edit_distance: 0, wait_ms: 90000 },
  { session_id: 's3', role: 'assistant', text: '', tokens: 0, origin: null, assistant_mode: 'review', edit_distance: null, wait_ms: 2000 },
  // A dataset from before the provenance columns: no origin, no tokens (the text is counted).
  { session_id: 's3', role: 'assistant', text: 'Plot hours against score.' },
];

function file(lines: unknown[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-origin-'));
  const p = path.join(dir, 'messages.jsonl');
  fs.writeFileSync(p, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return p;
}

describe('costByOrigin', () => {
  it('splits assistant turns and tokens by origin, with mean edit distance and wait', () => {
    // Checked with (rows written to messages.jsonl):
    // python3 -c "import json,collections,statistics as st; rows=[json.loads(l) for l in open('messages.jsonl')];
    //   g=collections.defaultdict(list); [g[r.get('origin') or ('discarded' if r.get('assistant_mode') not in (None,'model') else 'model')].append(r) for r in rows if r['role']=='assistant'];
    //   print({k:(len(v),sum(r.get('tokens') or 0 for r in v), st.mean([r['edit_distance'] for r in v if r.get('edit_distance') is not None] or [float('nan')]),
    //          st.mean([r['wait_ms'] for r in v if r.get('wait_ms') is not None] or [float('nan')])) for k,v in g.items()})"
    // → {'model': (2, 10, 0, 1000), 'model_edited': (2, 50, 7, 4000), 'wizard': (1, 5, nan, 8000), 'fallback': (1, 7, 0, 90000), 'discarded': (1, 0, nan, 2000)}
    // (python sums stored tokens only; the product counts the text of the row without them, added below.)
    const out = costByOrigin(file(rows));
    expect(out.model).toEqual({ turns: 2, tokens: 10 + countTokens('Plot hours against score.'), meanEditDistance: 0, meanWaitMs: 1000 });
    expect(out.model_edited).toEqual({ turns: 2, tokens: 50, meanEditDistance: 7, meanWaitMs: 4000 });
    expect(out.wizard).toEqual({ turns: 1, tokens: 5, meanEditDistance: null, meanWaitMs: 8000 });
    expect(out.fallback).toEqual({ turns: 1, tokens: 7, meanEditDistance: 0, meanWaitMs: 90000 });
    expect(out.discarded).toEqual({ turns: 1, tokens: 0, meanEditDistance: null, meanWaitMs: 2000 });
  });

  it('keeps only the sessions asked for', () => {
    const out = costByOrigin(file(rows), (s) => s === 's2');
    expect(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.turns]))).toEqual({ model: 0, model_edited: 1, wizard: 1, fallback: 1, discarded: 0 });
  });

  it('names the file, line and field of a bad row', () => {
    const p = file([rows[0], { ...rows[1], origin: 'robot' }]);
    expect(() => costByOrigin(p)).toThrow(DatasetError);
    try {
      costByOrigin(p);
    } catch (err) {
      expect(err).toMatchObject({ file: 'messages.jsonl', line: 2, column: 'origin' });
    }
  });
});
