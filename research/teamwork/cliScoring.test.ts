/**
 * `teamwork score --prices` and `teamwork report --lite` through the CLI, on runs written by hand (as
 * another tool would write them: the minimal run fields), so the expected figures follow from the file.
 *
 * Lite: one dimension, tasks info-a, info-b, info-c, four models, three test seeds each. Only info-c ranks
 * the models as the full set does (m1 > m2 > m3 > m4); info-a and info-b scramble them. By default the 2nd
 * and 4th models are held out, so the subset is chosen on m1 and m3, and τ is reported on m2 and m4.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { nodeArgsFor } from '../../tests/support/testEntries';

// Each test spawns the CLI several times; on a loaded machine that takes minutes.
vi.setConfig({ testTimeout: 300_000 });

const ROOT = new URL('../..', import.meta.url).pathname;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArgsFor(join(ROOT, 'cli/teamwork.ts')), ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Test passes out of 3 seeds per task; every model passes alone and in calm. */
const PASSES: Record<string, Record<string, number>> = {
  m1: { 'info-a': 3, 'info-b': 3, 'info-c': 3 },
  m2: { 'info-a': 3, 'info-b': 1, 'info-c': 2 },
  m3: { 'info-a': 0, 'info-b': 3, 'info-c': 1 },
  m4: { 'info-a': 2, 'info-b': 0, 'info-c': 0 },
};
const TOKENS = { input: 1000, output: 200 };

function runsFile(): { dir: string; runs: number } {
  const lines: string[] = [];
  for (const [model, tasks] of Object.entries(PASSES))
    for (const [task, passes] of Object.entries(tasks))
      for (const arm of ['alone', 'calm', 'test'] as const)
        for (let seed = 1; seed <= 3; seed++) {
          const passed = arm !== 'test' || seed <= passes;
          lines.push(JSON.stringify({ model, task, dimension: 'information', arm, seed, status: 'ok', passed, saw_problem: passed, failure_mode: passed ? null : 'missed_it', tokens: TOKENS, messages: [] }));
        }
  const dir = mkdtempSync(join(tmpdir(), 'tw-scoring-'));
  writeFileSync(join(dir, 'runs.jsonl'), `${lines.join('\n')}\n`);
  return { dir, runs: lines.length };
}

describe('teamwork CLI scoring flags', () => {
  it('--prices turns each priced model’s provider tokens into dollars, leaves the others blank, and refuses a bad price file', async () => {
    const { dir } = runsFile();
    const prices = join(dir, 'prices.yaml');
    writeFileSync(prices, 'm1: { input_per_mtok: 2.5, output_per_mtok: 10 }\nm3: { input_per_mtok: 0.15, output_per_mtok: 0.6 }\n');
    const scored = await cli(['score', dir, '--prices', prices, '--replicates', '200']);
    // Only warnings (hand-written runs have no settings): no error.
    expect(scored.stderr.trim().split('\n').every((l) => l.startsWith('teamwork: warning: '))).toBe(true);
    expect(scored.stderr).toContain('m1: 27 runs without recorded settings (settings unknown)');
    expect(scored.code).toBe(0);
    const scores = JSON.parse(readFileSync(join(dir, 'scores.json'), 'utf8'));
    expect(scores.settings.prices).toBe(true);
    const runsPerModel = 3 * 3 * 3;
    // 27 runs × (1000 input × $2.5 + 200 output × $10) per million tokens.
    expect(scores.models.m1.cost_usd).toBeCloseTo((runsPerModel * (1000 * 2.5 + 200 * 10)) / 1e6, 12);
    expect(scores.models.m1.cost_usd_per_run).toBeCloseTo(0.0045, 12);
    expect(scores.models.m3.cost_usd_per_run).toBeCloseTo((1000 * 0.15 + 200 * 0.6) / 1e6, 12);
    expect(scores.models.m2.cost_usd).toBeNull();
    const csv = readFileSync(join(dir, 'leaderboard.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    const column = csv[0]!.indexOf('cost_usd_per_run');
    expect(Object.fromEntries(csv.slice(1).map((row) => [row[1], row[column]]))).toEqual({ m1: '0.004500', m2: '', m3: '0.000270', m4: '' });
    // Not every model priced: the cost plot falls back to tokens per run.
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('tokens per run (no price file)');

    writeFileSync(prices, 'm1: { input_per_mtok: 2.5, output_per_mtok: 10 }\nm2: { input_per_mtok: 1 }\nm3: { input_per_mtok: 1, output_per_mtok: 1 }\nm4: { input_per_mtok: 1, output_per_mtok: 1 }\n');
    const bad = await cli(['score', dir, '--prices', prices]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${prices}: m2.output_per_mtok: `);
    writeFileSync(prices, 'm1: { input_per_mtok: 2.5, output_per_mtok: 10 }\nm2: { input_per_mtok: 1, output_per_mtok: 1 }\nm3: { input_per_mtok: 1, output_per_mtok: 1 }\nm4: { input_per_mtok: 1, output_per_mtok: 1 }\n');
    expect((await cli(['score', dir, '--prices', prices, '--replicates', '200'])).code).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('dollars per run');
  }, 300_000);

  it('--lite k picks the k tasks per dimension that keep the ranking, chosen on some models and checked on the held-out ones', async () => {
    const { dir, runs } = runsFile();
    const board = join(dir, 'board');
    const reported = await cli(['report', dir, '--out', board, '--lite', '1', '--replicates', '200']);
    expect(reported.code).toBe(0);
    const scores = JSON.parse(readFileSync(join(board, 'scores.json'), 'utf8'));
    expect(scores.ranking).toEqual(['m1', 'm2', 'm3', 'm4']); // full overall: 100, 66.7, 44.4, 22.2
    expect(scores.lite).toMatchObject({ k: 1, tasks: { information: ['info-c'] }, chosen_on: ['m1', 'm3'], held_out: ['m2', 'm4'], tau_chosen_on: 1, tau_held_out: 1, search: 'exhaustive' });
    expect(readFileSync(join(board, 'runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(runs);
    expect(readFileSync(join(board, 'report.html'), 'utf8')).toContain('info-c');

    // Held out by hand: chosen on m1, m2 and m4, where info-a (100, 100, 66.7) also orders m1 ≥ m2 > m4 but ties m1 and m2.
    const chosenBy = await cli(['report', dir, '--out', board, '--lite', '1', '--holdout', 'm3', '--replicates', '200']);
    expect(chosenBy.code).toBe(0);
    const lite = JSON.parse(readFileSync(join(board, 'scores.json'), 'utf8')).lite;
    expect(lite).toMatchObject({ tasks: { information: ['info-c'] }, chosen_on: ['m1', 'm2', 'm4'], held_out: ['m3'], tau_chosen_on: 1, tau_held_out: null });
    expect(lite.note).toMatch(/at least two held-out models/);

    const bad = await cli(['report', dir, '--out', board, '--lite', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--lite: ');
  }, 300_000);
});
