import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { httpError, type FakeOpenAI } from '../../../tests/support/fakeOpenAI';
import { readRunsIn } from '../results/runsFile';
import { writeResults } from '../results/writeResults';
import { scoreRuns } from '../scoring/scoreRuns';
import { loadTaskDir } from '../tasks/loadTasks';
import { runSuite, type SuiteOptions } from './runSuite';
import { isJudgeRequest, startScriptedServer } from '../../../tests/support/teamworkTestBed';

const suite = loadTaskDir(new URL('../../../teamwork/tasks/suite', import.meta.url).pathname);
const tmp = () => mkdtempSync(join(tmpdir(), 'teamwork-suite-'));
const offline = (model: string, outDir: string): SuiteOptions => ({
  tasks: suite, model, seeds: 3, concurrency: 8, outDir, partner: 'offline-partner', referee: 'offline-judge', second: 'offline-judge', temperature: 0.7, maxTokens: 300, env: {},
});

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('suite runs', () => {
  it('the offline reference teammates score as they must by construction', async () => {
    const dir = tmp();
    for (const model of ['offline-steady', 'offline-pushover', 'offline-wavering']) await runSuite(offline(model, dir));
    const runs = readRunsIn(dir);
    const n = suite.length;
    expect(n).toBe(45);
    expect(runs).toHaveLength(3 * n * 3 * 3);
    const { scores } = await writeResults(dir, runs, { replicates: 200 });
    const steady = scores.models['offline-steady']!;
    const pushover = scores.models['offline-pushover']!;
    const wavering = scores.models['offline-wavering']!;
    // All three solve every task alone and in the calm team; only steady holds up under the test.
    for (const s of [steady, pushover, wavering]) {
      expect(s.solved_alone).toHaveLength(n);
      for (const d of Object.values(s.dimensions)) expect(d.baseline).toBe(100);
    }
    // Per dimension: six gated tasks in each of CIB's seven, three in the takeover side study; test 100 / 0 / 0.
    for (const [d, count] of Object.entries({ unsafe_pressure: 6, misconduct: 6, information: 6, initiative: 6, emotional_intelligence: 6, on_track: 6, conflict: 6, takeover: 3 })) {
      for (const s of [steady, pushover, wavering]) expect(s.dimensions[d], d).toMatchObject({ n_tasks: count, n_gated: count, alone: 100, baseline: 100, n: { test: 3 * count, test_total: 3 * count } });
      expect([steady.dimensions[d]!.test, pushover.dimensions[d]!.test, wavering.dimensions[d]!.test], d).toEqual([100, 0, 0]);
    }
    const dealTasks = suite.filter((t) => t.check.type === 'deal').length;
    expect(steady.deals).toMatchObject({ test_runs: 3 * dealTasks, best: 3 * dealTasks, best_rate: 1, firm: 0 });
    expect(pushover.deals).toMatchObject({ test_runs: 3 * dealTasks, best: 0, firm: 0 });
    for (const s of [steady, pushover, wavering]) expect(s.judged_turns.unlabelled).toBe(0); // the offline judge always names a label
    expect(steady.excluded_runs).toEqual({ total: 0, error: 0, refused: 0, unscored: 0 }); // the judge checks are graded by their cues offline
    expect(steady.overall.score).toBe(100);
    expect(pushover.overall.score).toBe(0);
    expect(wavering.overall.score).toBe(0);
    expect(steady.failure_modes).toEqual({ missed_it: 0, gave_in: 0, other: 0, failed_test_runs: 0, test_runs: 3 * n });
    expect(pushover.failure_modes).toEqual({ missed_it: 3 * n, gave_in: 0, other: 0, failed_test_runs: 3 * n, test_runs: 3 * n }); // never names the problem
    expect(wavering.failure_modes).toEqual({ missed_it: 0, gave_in: 3 * n, other: 0, failed_test_runs: 3 * n, test_runs: 3 * n }); // names it, then gives in
    expect(scores.ranking[0]).toBe('offline-steady');
    expect([steady.rank, pushover.rank, wavering.rank]).toEqual([1, 2, 2]); // pushover and wavering tie at 0
    expect(scores.differences[0]).toMatchObject({ higher: 'offline-steady', difference: 100, ci95: [100, 100], p_higher: 1 });
    expect(scores.differences[1]).toMatchObject({ difference: 0, p_higher: 0.5 });
    expect(steady.runs.missing).toBe(0);
    expect(scores.settings.beside).toEqual(['takeover']);
    // The offline judge is both raters: full agreement, and the report says it validates nothing.
    expect(scores.judge_agreement.overall).toMatchObject({ percent: 100, kappa: 1 });
    expect(scores.warnings).toContain('judges: the referee and the second rater are the same model (offline-judge): their agreement validates nothing');
    expect(runs.every((r) => r.settings?.same_raters === true && r.settings.referee === 'offline-judge')).toBe(true);
    const csv = readFileSync(join(dir, 'leaderboard.csv'), 'utf8').split('\n');
    expect(csv[1]).toMatch(/^1,offline-steady,100\.00,/);
    expect(csv[2]).toMatch(/^2,offline-/);
    expect(csv[3]).toMatch(/^2,offline-/);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)?.length).toBe(4);
    expect(html).toContain('agreement validates nothing');
    expect(html).toContain('href="runs/info-flood-route.html"');
    const viewer = readFileSync(join(dir, 'runs', 'info-flood-route.html'), 'utf8');
    expect(viewer.match(/<details/g)?.length).toBe(27);
    // `score` recomputes from runs.jsonl alone
    expect(scoreRuns(readRunsIn(dir), { replicates: 200 }).models).toEqual(scores.models);
  }, 600_000); // 3 models × 45 tasks × 3 arms × 3 seeds: minutes on a loaded machine

  it('a rerun makes zero new calls for finished runs and retries the runs that errored', async () => {
    let failTask: string | null = 'info-flood-route';
    fake = await startScriptedServer({
      judge: () => 'other',
      subject: (r) => (failTask && JSON.stringify(r.body.messages[0]).includes('relief convoy') ? httpError(500) : 'FINAL: done'),
    });
    const dir = tmp();
    const tasks = suite.filter((t) => ['info-flood-route', 'track-approved-budget'].includes(t.id));
    const options: SuiteOptions = { ...offline('fake-model', dir), tasks, seeds: 2, referee: 'judge-model', second: 'judge-model-2', env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: fake.url }, maxAttempts: 1 };
    const first = await runSuite(options);
    expect(first.ran).toBe(12);
    expect(first.runs.filter((r) => r.status === 'error').map((r) => r.task)).toEqual(Array(6).fill('info-flood-route'));
    const afterFirst = fake.requests.length;

    failTask = null;
    const second = await runSuite(options);
    expect(second).toMatchObject({ ran: 6, skipped: 6 });
    expect(fake.requests.slice(afterFirst).every((r) => isJudgeRequest(r) || JSON.stringify(r.body.messages[0]).includes('relief convoy'))).toBe(true);
    expect(second.runs.every((r) => r.status === 'ok')).toBe(true);
    const afterSecond = fake.requests.length;

    const third = await runSuite(options);
    expect(third).toMatchObject({ ran: 0, skipped: 12, calls: 0, cacheHits: 0 });
    expect(fake.requests.length).toBe(afterSecond);
    expect(readFileSync(join(dir, 'runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(12); // compacted: one line per run
  });
});
