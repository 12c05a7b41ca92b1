/**
 * End to end: `cli/judge.ts` as a child process on a small dataset directory, with the provider
 * pointed (through OPENAI_BASE_URL / OPENAI_API_KEY) at a local fake OpenAI-compatible server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { reply, type RecordedRequest } from '../../tests/support/fakeOpenAI';
import { openFileReplyCache } from '../../lib/storage';
import { runCli } from '../../tests/support/judgeCliSupport';
import { datasetCliBed } from '../../tests/support/judgeTestBeds';

const runJudge = (args: string[], env: Record<string, string>, onSpawn?: (interrupt: () => void) => void) => runCli('cli/judge.ts', args, env, onSpawn);

const readCsv = (file: string) => parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];

/** Scores by seed so samples differ: seeds 0,1,2 → 2,4,5 (median 4); the artifact of p002 always gets 1. */
function responder(r: RecordedRequest) {
  const user = String(r.body.messages[1]?.content ?? '');
  if (user.includes('Column age has 12 missing values')) return reply('Thin answer. Therefore, the final score is 1.');
  const score = ({ 0: 2, 1: 4, 2: 5 } as Record<number, number>)[r.body.seed as number] ?? 3;
  return reply(`Checked against the rubric. Therefore, the final score is **${score}**.`, { delayMs: 40 });
}

const bed = datasetCliBed('tandem-judge-cli-', { model: 'judge-x-2024', responder });

describe('npm run judge -- <dataset-dir>', () => {
  it('writes judgements.csv and quality.csv; a second run makes zero new calls', async () => {
    const first = await runJudge([bed.dir, '--samples', '3', '--model', 'judge-x', '--concurrency', '2'], bed.env);
    expect(first.stderr).toContain('done: 9/9 samples');
    expect(first.code).toBe(0);
    expect(bed.fake.requests).toHaveLength(9); // 3 judged sessions × 3 samples; p004 has no artifact

    const judgements = readCsv(join(bed.dir, 'judgements.csv'));
    expect(Object.keys(judgements[0]!)).toEqual(['session_id', 'rubric_id', 'rubric_hash', 'model', 'sample', 'score', 'parse_ok', 'cached', 'artifact_version', 'images']);
    expect(judgements.every((j) => j.images === '')).toBe(true); // text-only (--images describe): no list
    expect(judgements.filter((j) => j.session_id === 'p001').every((j) => j.artifact_version === '2')).toBe(true);
    expect(judgements.map((j) => `${j.session_id}:${j.rubric_id}:${j.sample}:${j.score}`)).toEqual([
      'p001:travel-planning:0:2', 'p001:travel-planning:1:4', 'p001:travel-planning:2:5',
      'p002:tabular-analysis:0:1', 'p002:tabular-analysis:1:1', 'p002:tabular-analysis:2:1',
      'p003:related-work:0:2', 'p003:related-work:1:4', 'p003:related-work:2:5',
    ]);
    expect(judgements.every((j) => j.model === 'judge-x-2024' && j.parse_ok === 'true' && j.cached === 'false')).toBe(true);
    expect(readCsv(join(bed.dir, 'quality.csv'))).toEqual([
      { session_id: 'p001', quality: '4', samples: '3', parsed: '3' },
      { session_id: 'p002', quality: '1', samples: '3', parsed: '3' },
      { session_id: 'p003', quality: '4', samples: '3', parsed: '3' },
      { session_id: 'p004', quality: '', samples: '0', parsed: '0' },
    ]);
    // The latest artifact version is judged, execution output goes to its own fenced section.
    const p001 = bed.fake.requests.find((r) => String(r.body.messages[1].content).includes('Sintra'));
    expect(p001).toBeDefined();
    const p002 = String(bed.fake.requests.find((r) => String(r.body.messages[1].content).includes('Column age'))!.body.messages[1].content);
    expect(p002).toMatch(/<<<DATA \w+ execution excerpts>>>\n## execution_output\nage 12/);
    // Full audit records beside the CSV.
    const audit = readFileSync(join(bed.dir, 'judgements.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit[0]).toMatchObject({ providerUrl: bed.fake.url, requestedModel: 'judge-x', reportedModel: 'judge-x-2024', systemFingerprint: 'fp_fake' });

    const second = await runJudge([bed.dir, '--samples', '3', '--model', 'judge-x'], bed.env);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('0 new calls, 9 cache hits');
    expect(bed.fake.requests).toHaveLength(9);
    const again = readCsv(join(bed.dir, 'judgements.csv'));
    expect(again.map((j) => j.score)).toEqual(judgements.map((j) => j.score));
    expect(again.every((j) => j.cached === 'true')).toBe(true);
  });

  it('Ctrl-C keeps finished replies (cached, no partial CSV) and a rerun resumes', async () => {
    bed.fake.setResponder((r) => reply('Fine. Therefore, the final score is 3.', { delayMs: r.body.seed === 0 ? 30 : 30_000 }));
    const interrupted = await runJudge([bed.dir, '--samples', '2', '--concurrency', '6'], bed.env, (kill) => {
      const poll = setInterval(async () => {
        if (existsSync(join(bed.dir, '.judge-cache.sqlite'))) {
          const cache = openFileReplyCache(join(bed.dir, '.judge-cache.sqlite'));
          const n = await cache.count();
          await cache.close();
          if (n >= 3) {
            clearInterval(poll);
            kill();
          }
        }
      }, 50);
    });
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toContain('rerun the same command to resume');
    expect(existsSync(join(bed.dir, 'judgements.csv'))).toBe(false);
    const callsBefore = bed.fake.requests.length;

    bed.fake.setResponder(() => reply('Fine. Therefore, the final score is 3.'));
    const resumed = await runJudge([bed.dir, '--samples', '2', '--concurrency', '6'], bed.env);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('3 cache hits');
    expect(bed.fake.requests.length - callsBefore).toBe(3); // only the unfinished samples
    expect(readCsv(join(bed.dir, 'judgements.csv'))).toHaveLength(6);
  });

  it('rejects bad flags and bad files with a clear message', async () => {
    const bad = await runJudge([bed.dir, '--concurrency', 'many'], bed.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--concurrency:');
    const missing = await runJudge([join(bed.dir, 'nope')], bed.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');
    const unknownRubric = await runJudge([bed.dir, '--rubric', 'knitting'], bed.env);
    // Without a study definition, --rubric applies to every task, so an unknown id stops the run before any call.
    expect(unknownRubric.code).toBe(1);
    expect(unknownRubric.stderr).toContain('rubric "knitting"');
    expect(bed.fake.requests).toHaveLength(0);
  });
});
