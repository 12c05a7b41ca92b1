/**
 * Writes the derived files of a results folder from its runs alone: scores.json, leaderboard.csv,
 * report.html and the run viewer runs/<task>.html (runs.jsonl is the source; `teamwork score` reruns exactly this).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamworkRun } from '../../../common/teamworkRun';
import { leaderboardCsv } from '../report/leaderboardCsv';
import { runPageName } from '../report/htmlBits';
import { renderTeamworkReport } from '../report/reportHtml';
import { runPage } from '../report/runViewer';
import { liteSubset, type LiteSubset } from '../scoring/liteSubset';
import { scoreRuns, type ScoreOptions, type Scores } from '../scoring/scoreRuns';

export interface WriteOptions extends ScoreOptions {
  /** k tasks per dimension for the lite subset (omit: no lite subset). */
  liteK?: number;
  liteHoldout?: string[];
}

export async function writeResults(dir: string, runs: readonly TeamworkRun[], options: WriteOptions = {}): Promise<{ scores: Scores & { lite: LiteSubset | null } }> {
  const scores = scoreRuns(runs, options);
  const lite = options.liteK !== undefined ? liteSubset(runs, options.liteK, options.liteHoldout) : null;
  const withLite = { ...scores, lite };
  writeFileSync(join(dir, 'scores.json'), `${JSON.stringify(withLite, null, 2)}\n`);
  writeFileSync(join(dir, 'leaderboard.csv'), leaderboardCsv(scores));
  writeFileSync(join(dir, 'report.html'), await renderTeamworkReport(scores, lite, runs));
  // The run viewer: one page per task, linked from the report's per-task table.
  const viewer = join(dir, 'runs');
  mkdirSync(viewer, { recursive: true });
  for (const old of readdirSync(viewer).filter((n) => n.endsWith('.html'))) rmSync(join(viewer, old));
  for (const task of new Set(runs.map((r) => r.task))) writeFileSync(join(dir, 'runs', runPageName(task)), runPage(task, runs.filter((r) => r.task === task)));
  return { scores: withLite };
}
