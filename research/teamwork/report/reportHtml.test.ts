import { describe, expect, it } from 'vitest';
import type { TeamworkRun } from '../../../common/teamworkRun';
import { scoreRuns } from '../scoring/scoreRuns';
import { leaderboardCsv } from './leaderboardCsv';
import { renderTeamworkReport } from './reportHtml';
import { runPage } from './runViewer';
import { paretoFrontier } from './specs';

const EVIL = '<img src=x onerror=alert(1)>';
const run = (model: string, arm: TeamworkRun['arm'], seed: number, score: number, input: number): TeamworkRun => ({
  model, task: 't1', dimension: 'conflict', arm, seed, status: 'ok', passed: score === 1, score, saw_problem: false,
  failure_mode: arm === 'test' && score < 1 ? 'missed_it' : null, tokens: { input, output: 10 }, messages: [],
});

describe('teamwork report', () => {
  it('escapes every name that reaches the page and draws the four plots', async () => {
    const runs = [EVIL, 'plain-model'].flatMap((m, i) => [run(m, 'alone', 1, 1, 100 * (i + 1)), run(m, 'calm', 1, 1, 100 * (i + 1)), run(m, 'test', 1, i === 0 ? 0 : 0.5, 100 * (i + 1))]);
    const html = await renderTeamworkReport(scoreRuns(runs, { replicates: 100 }), null);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html.match(/<svg/g)?.length).toBe(4);
    expect(html).not.toMatch(/<script/i);
    // CSV quotes rather than breaks
    expect(leaderboardCsv(scoreRuns(runs, { replicates: 100 })).split('\n')[0]).toMatch(/^rank,model,overall/);
  });

  it('Pareto frontier: the models nobody beats on both cost and score', () => {
    const points = [{ model: 'a', cost: 1, score: 40 }, { model: 'b', cost: 2, score: 30 }, { model: 'c', cost: 3, score: 70 }, { model: 'd', cost: 4, score: 60 }, { model: 'e', cost: 5, score: 90 }];
    expect(paretoFrontier(points).map((p) => p.model)).toEqual(['a', 'c', 'e']);
  });

  it('shows settings, warnings, "n scored of N", rates with denominators, the per-task table and an escaped run viewer', async () => {
    const settings = { temperature: 0.2, max_tokens: 600, seeds: 1, referee: 'judge-a', second_rater: 'judge-b', third_rater: null, partner: 'offline-partner', tandem_version: '0.1.0', models_file_hash: null, endpoints: { m: 'http://127.0.0.1:9/v1' } };
    const message = { seq: 1, round: 1, speaker: 'model', seat: 'subject' as const, role: 'assistant' as const, text: `FINAL: ${EVIL}`,
      labels: { referee: { rater: 'referee' as const, model: 'judge-a', label: 'other', raw: 'other' }, second: { rater: 'second' as const, model: 'judge-b', label: null, raw: EVIL }, final: 'other', agreed: false } };
    const runs: TeamworkRun[] = [
      { ...run('m', 'alone', 1, 1, 100), settings }, { ...run('m', 'calm', 1, 1, 100), settings },
      { ...run('m', 'test', 1, 0, 100), settings, answer: EVIL, messages: [message] }, { ...run('m', 'test', 2, 0, 100), status: 'error', error: 'boom', settings },
      run('old', 'alone', 1, 1, 50), run('old', 'test', 1, 1, 50),
    ];
    const scores = scoreRuns(runs, { replicates: 100 });
    const html = await renderTeamworkReport(scores, null, runs);
    expect(html).toContain('class="warnings"');
    expect(html).toContain('m: 1 run excluded (error 1, refused 0)');
    expect(html).toContain('settings unknown (2 runs)');
    expect(html).toContain('m: http://127.0.0.1:9/v1');
    expect(html).toContain('0.0 (1 scored of 2)'); // m's test arm: 1 run counts of the 2 the gated task has
    expect(html).toContain('1 of 1 (100 %)'); // missed it, of the test runs
    expect(html).toContain('href="runs/t1.html"');
    expect(html).not.toContain('<img');
    const viewer = runPage('t1', runs);
    expect(viewer).not.toContain('<img');
    expect(viewer).toContain('FINAL: &lt;img src=x onerror=alert(1)&gt;');
    expect(viewer).toContain('(no label) — judge-b');
    expect(viewer).toContain('error: boom');
    expect(viewer.match(/<details/g)?.length).toBe(6);
    expect(scores.judge_agreement.overall).toMatchObject({ n_messages: 1, no_label: 1 }); // the second rater's reply named no label
    expect(html).toContain('judge replies naming no label');
  });
});
