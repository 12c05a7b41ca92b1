import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClose } from '../../../tests/support/expectClose';
import type { Estimate } from './estimate';
import type { AgreementReport } from './runAgreement';
import { FRICTION_LABELS, GROUNDING_ACTS } from '../../../common/labels';
import { nodeArgsFor } from '../../../tests/support/testEntries';

// End to end: spawns the real CLI on tests/fixtures/agreement and compares every number with
// expected.json, written by `python3 tests/fixtures/agreement/reference.py` (numpy/scipy 1.17;
// kappa and ICC each cross-checked there by a second formula, Spearman by scipy.stats.spearmanr).

const root = resolve(import.meta.dirname, '../../..');
const fixture = join(root, 'tests/fixtures/agreement');
const run = promisify(execFile);

type Ref = number | null;
interface ExpectedScores {
  rater_a: string; rater_b: string; n: number; kappa_n: number;
  spearman: { rho: number; p: number } | null;
  kappa_none: Ref; kappa_linear: Ref; kappa_quadratic: Ref;
  icc: Record<'icc1' | 'icc1k' | 'a1' | 'ak' | 'c1' | 'ck', Ref> | null;
  icc_ci95: Record<'icc1' | 'icc1k' | 'a1' | 'ak' | 'c1' | 'ck', ExpectedInterval | null> | null;
}
interface ExpectedInterval { lower: number; upper: number; p: number }
interface ExpectedLabel { kappa: Ref; f1: Ref; count_a: number; count_b: number }
interface ExpectedLabels {
  rater_a: string; rater_b: string; n: number;
  grounding: Record<string, ExpectedLabel>; friction: Record<string, ExpectedLabel>;
  grounding_micro_f1: Ref; friction_micro_f1: Ref; friction_kappa: Ref;
}
interface ExpectedGroup {
  group: string; raters: string[]; n: number;
  icc: Record<(typeof FORMS)[number], Ref> | null;
  icc_ci95: Record<(typeof FORMS)[number], ExpectedInterval | null> | null;
}
const FORMS = ['icc1', 'icc1k', 'a1', 'ak', 'c1', 'ck'] as const;
const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as {
  scores: ExpectedScores[];
  groups: { all: ExpectedGroup[]; without_dave: ExpectedGroup[] };
  labels: ExpectedLabels[];
};

function expectGroups(got: AgreementReport['groups'], want: ExpectedGroup[]) {
  expect(got.map((g) => [g.group, g.raters, g.n])).toEqual(want.map((g) => [g.group, g.raters, g.n]));
  want.forEach((g, i) => {
    for (const form of FORMS) {
      expectEstimate(got[i]!.icc[form], g.icc ? g.icc[form] : null, `${g.group} ${form}`);
      expectInterval(got[i]!.icc_ci95[form], g.icc_ci95 ? g.icc_ci95[form] : null, `${g.group} ${form}`);
    }
  });
}

function expectEstimate(actual: Estimate, ref: Ref, what: string) {
  if (ref === null) {
    expect(actual.value, what).toBeNull();
    expect(actual.reason, what).toBeTruthy();
  } else expectClose(actual.value, ref);
}

// @stdlib's F quantile / incomplete beta agree with scipy to 1e-12 relative
function expectInterval(actual: { lower: number; upper: number; p: number } | null, ref: ExpectedInterval | null, what: string) {
  if (ref === null) {
    expect(actual, what).toBeNull();
    return;
  }
  expect(actual, what).not.toBeNull();
  expectClose(actual!.lower, ref.lower, 1e-12);
  expectClose(actual!.upper, ref.upper, 1e-12);
  expectClose(actual!.p, ref.p, 1e-12);
}

async function cli(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...nodeArgsFor('cli/agreement.ts'), ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let out: string;
let report: AgreementReport;
let stdout: string;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'agreement-'));
  const result = await cli([join(fixture, 'dataset'), '--ratings', join(fixture, 'ratings.csv'), '--labels', join(fixture, 'labels.csv'), '--out', out]);
  expect(result.stderr).not.toMatch(/Error/);
  expect(result.code).toBe(0);
  stdout = result.stdout;
  report = JSON.parse(readFileSync(join(out, 'agreement.json'), 'utf8')) as AgreementReport;
});

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run agreement (end to end)', () => {
  it('compares the judge with each rater and every pair of raters, in order', () => {
    expect(report.judge_source).toBe('quality.csv');
    expect(report.scores.map((s) => `${s.rater_a}-${s.rater_b}`)).toEqual(expected.scores.map((s) => `${s.rater_a}-${s.rater_b}`));
    expect(report.score_raters).toEqual([
      { rater: 'judge', n: 9 }, { rater: 'alice', n: 10 }, { rater: 'bob', n: 8 }, { rater: 'carol', n: 8 }, { rater: 'dave', n: 2 },
    ]);
  });

  it('matches the reference Spearman, kappa and ICC values for every pair', () => {
    for (const ref of expected.scores) {
      const got = report.scores.find((s) => s.rater_a === ref.rater_a && s.rater_b === ref.rater_b)!;
      const what = `${ref.rater_a}-${ref.rater_b}`;
      expect(got.n, what).toBe(ref.n);
      expect(got.kappa.n, what).toBe(ref.kappa_n);
      if (ref.spearman === null) expect(got.spearman.value, what).toBeNull();
      else {
        expectClose(got.spearman.value, ref.spearman.rho);
        expectClose(got.spearman.p, ref.spearman.p, 1e-6);
      }
      expectEstimate(got.kappa.unweighted, ref.kappa_none, `${what} kappa`);
      expectEstimate(got.kappa.linear, ref.kappa_linear, `${what} linear`);
      expectEstimate(got.kappa.quadratic, ref.kappa_quadratic, `${what} quadratic`);
      for (const form of ['icc1', 'icc1k', 'a1', 'ak', 'c1', 'ck'] as const) {
        expectEstimate(got.icc[form], ref.icc ? ref.icc[form] : null, `${what} ${form}`);
        expectInterval(got.icc_ci95[form], ref.icc_ci95 ? ref.icc_ci95[form] : null, `${what} ${form} CI`);
      }
    }
  });

  it('explains undefined values: no overlap, too few items, a constant rater, the x.5 judge median left out of kappa', () => {
    const none = report.scores.find((s) => s.rater_a === 'carol' && s.rater_b === 'dave')!;
    expect(none.n).toBe(0);
    expect(none.kappa.unweighted.reason).toBe('no items rated by both');
    expect(none.icc.a1.reason).toMatch(/at least 2 targets/);
    expect(report.notes).toContain('raters carol and dave scored no session in common');
    expect(report.scores.find((s) => s.rater_b === 'dave')!.spearman.reason).toMatch(/at least 3 items/);
    const judgeAlice = report.scores.find((s) => s.rater_a === 'judge' && s.rater_b === 'alice')!;
    expect(judgeAlice.n - judgeAlice.kappa.n).toBe(1); // s08 judge median 3.5
    expect(JSON.stringify(report)).not.toMatch(/NaN/);
  });

  it('matches the reference per-label kappa, F1 and micro-F1 for annotations', () => {
    expect(report.labels.map((l) => `${l.rater_a}-${l.rater_b}`)).toEqual(['llm-alice', 'llm-bob', 'alice-bob']);
    for (const ref of expected.labels) {
      const got = report.labels.find((l) => l.rater_a === ref.rater_a && l.rater_b === ref.rater_b)!;
      const what = `${ref.rater_a}-${ref.rater_b}`;
      expect(got.n, what).toBe(ref.n);
      expectEstimate(got.grounding.micro_f1, ref.grounding_micro_f1, `${what} grounding micro-F1`);
      expectEstimate(got.friction.micro_f1, ref.friction_micro_f1, `${what} friction micro-F1`);
      expectEstimate(got.friction.kappa, ref.friction_kappa, `${what} friction kappa`);
      for (const label of GROUNDING_ACTS) {
        const g = got.grounding.labels[label];
        expectEstimate(g.kappa, ref.grounding[label]!.kappa, `${what} ${label} kappa`);
        expectEstimate(g.f1, ref.grounding[label]!.f1, `${what} ${label} f1`);
        expect([g.count_a, g.count_b]).toEqual([ref.grounding[label]!.count_a, ref.grounding[label]!.count_b]);
      }
      for (const label of FRICTION_LABELS) {
        const f = got.friction.labels[label];
        expectEstimate(f.kappa, ref.friction[label]!.kappa, `${what} ${label} kappa`);
        expectEstimate(f.f1, ref.friction[label]!.f1, `${what} ${label} f1`);
      }
    }
    expect(report.labels[0]!.grounding.labels.display.kappa.reason).toBe('label "display" never used by either rater');
  });

  it('gives k-rater ICCs over the sessions every rater scored (none here: carol and dave share none)', async () => {
    expectGroups(report.groups, expected.groups.all);
    expect(report.notes).toContain('group humans: fewer than 2 sessions were scored by all of alice, bob, carol, dave');
    const dir = mkdtempSync(join(tmpdir(), 'agreement-groups-'));
    try {
      const ratings = readFileSync(join(fixture, 'ratings.csv'), 'utf8').split('\n').filter((l) => !l.includes(',dave,')).join('\n');
      writeFileSync(join(dir, 'ratings.csv'), ratings);
      const r = await cli([join(fixture, 'dataset'), '--ratings', join(dir, 'ratings.csv'), '--out', dir]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/judge_and_humans\s+judge, alice, bob, carol\s+6\s+0\.860/);
      const second = JSON.parse(readFileSync(join(dir, 'agreement.json'), 'utf8')) as AgreementReport;
      expectGroups(second.groups, expected.groups.without_dave);
      expect(second.labels).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints a readable table and writes agreement.csv with the same numbers', () => {
    expect(stdout).toMatch(/judge\s+alice\s+9\s+0\.910/);
    expect(stdout).toMatch(/grounding:display\s+— \/ —/);
    const rows = parse(readFileSync(join(out, 'agreement.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const quad = rows.find((r) => r.section === 'scores' && r.rater_a === 'judge' && r.rater_b === 'bob' && r.statistic === 'kappa_quadratic')!;
    expectClose(Number(quad.value), expected.scores.find((s) => s.rater_b === 'bob' && s.rater_a === 'judge')!.kappa_quadratic!);
    expect(quad.n).toBe('7');
    const undefinedRow = rows.find((r) => r.rater_a === 'carol' && r.rater_b === 'dave' && r.statistic === 'kappa_linear')!;
    expect(undefinedRow.value).toBe('');
    expect(undefinedRow.reason).toBe('no items rated by both');
  });
});

describe('npm run agreement: templates for human raters', () => {
  it('writes ratings and labels templates without needing ratings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agreement-tpl-'));
    try {
      const ratings = join(dir, 'rate.csv');
      const labels = join(dir, 'label.csv');
      const r = await cli([join(fixture, 'dataset'), '--template', ratings, '--labels-template', labels, '--rater', 'erin']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/10 sessions to rate/);
      expect(r.stderr).toMatch(/7 utterances to label/);
      const rateRows = parse(readFileSync(ratings, 'utf8'), { columns: true }) as Record<string, string>[];
      expect(rateRows).toHaveLength(10);
      expect(rateRows[0]).toEqual({ session_id: 's01', task: 'travel_planning', rater: 'erin', score: '' });
      const labelRows = parse(readFileSync(labels, 'utf8'), { columns: true }) as Record<string, string>[];
      expect(labelRows[1]).toEqual({ session_id: 's01', turn: '1', speaker: 'agent', text: 'Sure. What is your budget?', friction: '', grounding: '', rater: 'erin' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run agreement: bad input', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agreement-bad-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names file, line and column of an out-of-range score and exits 2', async () => {
    const bad = join(dir, 'ratings.csv');
    writeFileSync(bad, 'session_id,rater,score\ns01,alice,4\ns02,alice,7\n');
    const r = await cli([join(fixture, 'dataset'), '--ratings', bad, '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}, line 3, column "score": score must be an integer 1–5 or empty (got "7")`);
  });

  it('rejects an unknown session, a duplicate rating and a reserved rater name', async () => {
    const file = join(dir, 'r2.csv');
    writeFileSync(file, 'session_id,rater,score\ns01,alice,4\ns99,alice,3\n');
    expect((await cli([join(fixture, 'dataset'), '--ratings', file])).stderr).toMatch(/line 3, column "session_id": session "s99" is not in the dataset/);
    writeFileSync(file, 'session_id,rater,score\ns01,alice,4\ns02,bob,3\ns01,alice,5\n');
    expect((await cli([join(fixture, 'dataset'), '--ratings', file])).stderr).toMatch(/line 4, column "rater": rater "alice" rated session "s01" twice \(also line 2\)/);
    writeFileSync(file, 'session_id,rater,score\ns01,judge,4\n');
    expect((await cli([join(fixture, 'dataset'), '--ratings', file])).stderr).toMatch(/line 2, column "rater": .*reserved/);
  });

  it('rejects an unknown label and a speaker that contradicts the LLM annotations', async () => {
    const file = join(dir, 'labels.csv');
    writeFileSync(file, 'session_id,turn,speaker,friction,grounding,rater\ns01,0,user,none,response;nodding,alice\n');
    const r = await cli([join(fixture, 'dataset'), '--labels', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/labels\.csv, line 2, column "grounding": grounding must be ;-joined labels/);
    writeFileSync(file, 'session_id,turn,speaker,friction,grounding,rater\ns01,1,user,none,response,alice\n');
    expect((await cli([join(fixture, 'dataset'), '--labels', file])).stderr).toMatch(
      /line 2, column "speaker": utterance s01 turn 1 has speaker "user" here but "agent" in .*annotations\.csv line 3/,
    );
  });

  it('explains bad flags and a missing dataset', async () => {
    expect((await cli([join(fixture, 'dataset')])).stderr).toMatch(/nothing to do: give --ratings/);
    expect((await cli([join(fixture, 'dataset'), '--ratings'])).stderr).toMatch(/--ratings.*argument missing|usage/);
    const missing = await cli([join(dir, 'nope'), '--ratings', join(fixture, 'ratings.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope: dataset directory not found/);
    expect((await cli([join(fixture, 'dataset'), '--template', join(dir, 't.csv'), '--rater', 'a b'])).stderr).toMatch(/--rater: rater must be a pseudonym/);
  });
});
