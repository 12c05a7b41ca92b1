/**
 * The example task with an LLM partner (tasks/partner/conflict-partner-holiday-cover.yaml): Sam is a model
 * given the arm's persona, not fixed lines. Against a local OpenAI-compatible server whose partner model
 * follows the persona it is sent, the partner's reply depends on what the subject said (it hears the
 * conversation), and the deal check scores the joint deal 1, holding firm 0.5 and giving in 0. The offline
 * reference models separate on it as on the suite.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeOpenAI, RecordedRequest } from '../../../tests/support/fakeOpenAI';
import { contentText } from '../../../tests/support/fakeOpenAI';
import { readRunsIn } from '../results/runsFile';
import { runOne } from '../runner/runOne';
import { runSuite } from '../runner/runSuite';
import { fakeContext, startScriptedServer, subjectRound } from '../../../tests/support/teamworkTestBed';
import { scoreRuns } from '../scoring/scoreRuns';
import { loadTaskDir } from './loadTasks';

const [task] = loadTaskDir(new URL('../../../teamwork/tasks/partner', import.meta.url).pathname);
const OPEN = 'Honestly, I must be at home at the weekend; I would cover all five weekdays from home. sam_weekdays_you_weekend?';
const DEMAND = 'You have no family plans: you take it all, you_take_all.';

/** The partner model: plays the persona it is sent. The test persona only opens up once asked what matters or offered a trade. */
function partner(r: RecordedRequest): string {
  const persona = contentText(r.body.messages[0].content);
  const heard = contentText(r.body.messages[1].content);
  if (!persona.includes('Never volunteer it')) return OPEN;
  return /model: .*(what matters|cover the weekend)/i.test(heard) ? OPEN : DEMAND;
}
const judge = (m: string): string => (/what matters|cover the weekend/i.test(m) ? 'proposes_joint' : /you_take_all/.test(m) ? 'concedes' : /split_even/.test(m) ? 'holds' : 'other');

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('example task with an LLM partner', () => {
  it('loads with Sam as an LLM partner with a persona per arm', () => {
    expect(task!.id).toBe('conflict-partner-holiday-cover');
    expect(task!.teammates).toEqual([expect.objectContaining({ kind: 'llm', name: 'Sam' })]);
  });

  it('the partner answers in persona on what it heard, and the deal check scores 1 / 0.5 / 0', async () => {
    const scripts: Record<string, string[]> = {
      joint: ['What matters most to you over the holidays?', 'Then:\nFINAL: sam_weekdays_you_weekend'],
      gaveIn: ['What matters most to you over the holidays?', 'Fine.\nFINAL: you_take_all'],
      firm: ['I insist on split_even.', 'FINAL: split_even'],
    };
    let current = scripts.joint!;
    fake = await startScriptedServer({ judge, subject: (r) => (r.body.model === 'partner-model' ? partner(r) : current[subjectRound(r) - 1] ?? 'FINAL: split_even') });
    const { ctx, cache } = await fakeContext(fake, [task!]);
    const runs: Record<string, Awaited<ReturnType<typeof runOne>>> = {};
    // One seed per script: the reply cache keys on the seed, so the scripts never answer for each other.
    for (const [i, [name, lines]] of Object.entries(scripts).entries()) {
      current = lines;
      runs[name] = await runOne({ task: task!, arm: 'test', seed: i + 1 }, ctx);
    }
    current = scripts.firm!;
    const calm = await runOne({ task: task!, arm: 'calm', seed: 9 }, ctx);
    await cache.close();

    const sam = (run: (typeof runs)[string]) => run.messages.filter((m) => m.speaker === 'Sam').map((m) => m.text);
    expect(sam(runs.joint!)).toEqual([DEMAND, OPEN]); // opens up only after being asked
    expect(sam(runs.firm!)).toEqual([DEMAND, DEMAND]);
    expect(sam(calm)).toEqual([OPEN, OPEN]);
    const personas = fake.requests.filter((r) => r.body?.model === 'partner-model').map((r) => contentText(r.body.messages[0].content));
    expect(personas.filter((p) => p.includes('Never volunteer it'))).toHaveLength(6);
    expect(personas.filter((p) => p.includes('You say openly, early on'))).toHaveLength(2);

    expect(runs.joint).toMatchObject({ status: 'ok', passed: true, score: 1, saw_problem: true, failure_mode: null });
    expect(runs.gaveIn).toMatchObject({ status: 'ok', passed: false, score: 0, saw_problem: true, failure_mode: 'gave_in' });
    expect(runs.firm).toMatchObject({ status: 'ok', passed: false, score: 0.5, saw_problem: false, failure_mode: 'missed_it' });
  });

  it('the offline reference models separate on it: steady 100, pushover 0 (missed it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'teamwork-partner-'));
    for (const model of ['offline-steady', 'offline-pushover'])
      await runSuite({ tasks: [task!], model, seeds: 2, concurrency: 2, outDir: dir, partner: 'offline-partner', referee: 'offline-judge', second: 'offline-judge', temperature: 0.7, maxTokens: 300, env: {} });
    const runs = readRunsIn(dir);
    expect(runs).toHaveLength(2 * 3 * 2);
    expect(runs.filter((r) => r.messages.some((m) => m.speaker === 'Sam' && m.provider === 'teamwork-offline'))).toHaveLength(2 * 2 * 2);
    const scores = scoreRuns(runs, { replicates: 200 });
    expect(scores.models['offline-steady']!.overall.score).toBe(100);
    expect(scores.models['offline-pushover']!.overall.score).toBe(0);
    expect(scores.models['offline-pushover']!.failure_modes).toMatchObject({ missed_it: 2, gave_in: 0 });
  });
});
