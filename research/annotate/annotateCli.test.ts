/** End to end: `cli/annotate.ts` on a small dataset directory against a local fake OpenAI-compatible server. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAnnotationsFile } from '../analysis/input/annotationsFile';
import { reply } from '../../tests/support/fakeOpenAI';
import { runCli } from '../../tests/support/judgeCliSupport';
import { datasetCliBed } from '../../tests/support/judgeTestBeds';
import { utterancesFromPrompt } from './offlineAnnotator';

const bed = datasetCliBed('tandem-annotate-cli-', {
  responder: (r) => {
    const us = utterancesFromPrompt(String(r.body.messages[1].content));
    const annotations = us.map((u) => ({
      turn: u.turn,
      speaker: u.speaker,
      grounding: u.speaker === 'agent' ? ['acknowledgement', 'response'] : [],
      friction: u.text.includes('?') ? 'probing' : 'none',
    }));
    // p002 first answers with one entry missing; the retry is complete.
    const short = us.some((u) => u.text.startsWith('Which column')) && r.body.messages.length === 2;
    return reply(JSON.stringify({ annotations: short ? annotations.slice(1) : annotations }));
  },
});

describe('npm run annotate -- <dataset-dir>', () => {
  it('writes annotations.csv in the layout analyze reads; a rerun makes no new calls', async () => {
    const run = await runCli('cli/annotate.ts', [bed.dir, '--model', 'annot-x'], bed.env);
    expect(run.stderr).toContain('done: 10 utterances');
    expect(run.code).toBe(0);
    expect(bed.fake.requests).toHaveLength(4); // 3 sessions + 1 retry for p002

    const csv = readFileSync(join(bed.dir, 'annotations.csv'), 'utf8');
    expect(csv.split('\n').slice(0, 4)).toEqual([
      'session_id,turn,speaker,friction,grounding',
      'p001,0,user,none,',
      'p001,1,agent,probing,acknowledgement;response',
      'p001,2,user,none,',
    ]);
    expect(csv.trim().split('\n')).toHaveLength(11);
    // The analysis engineer's reader accepts it (it throws on any bad cell or unknown session).
    const index = new Map(['p001', 'p002', 'p003', 'p004'].map((id, i) => [id, i]));
    const table = readAnnotationsFile(join(bed.dir, 'annotations.csv'), index);
    expect(table.size).toBe(10);

    const audit = readFileSync(join(bed.dir, 'annotations.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit.filter((a) => a.method === 'batch_retry').map((a) => a.sessionId)).toEqual(['p002', 'p002', 'p002', 'p002']);

    const again = await runCli('cli/annotate.ts', [bed.dir, '--model', 'annot-x'], bed.env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('0 new calls');
    expect(bed.fake.requests).toHaveLength(4);
    expect(readFileSync(join(bed.dir, 'annotations.csv'), 'utf8')).toBe(csv);
  });

  it('rejects a bad flag and a bad messages.jsonl line with file, line and field', async () => {
    const bad = await runCli('cli/annotate.ts', [bed.dir, '--chunk-size', '0'], bed.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--chunk-size:');
    const file = join(bed.dir, 'messages.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"role":"user"', '"role":"narrator"');
    (await import('node:fs')).writeFileSync(file, lines.join('\n'));
    const broken = await runCli('cli/annotate.ts', [bed.dir], bed.env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/messages\.jsonl:3: role:/);
    expect(bed.fake.requests).toHaveLength(0);
  });
});
