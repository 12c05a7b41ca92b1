import { describe, expect, it } from 'vitest';
import type { TeamworkRun } from '../../../common/teamworkRun';
import { scoreRuns } from '../scoring/scoreRuns';
import { leaderboardCsv } from './leaderboardCsv';
import { renderTeamworkReport } from './reportHtml';
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
});
