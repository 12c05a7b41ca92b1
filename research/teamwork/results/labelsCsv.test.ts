import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import type { RunMessage, TeamworkRun } from '../../../common/teamworkRun';
import { teamworkLabelAgreement } from '../../analysis/agreement/io/readTeamworkLabels';
import { teamworkLabelsCsv } from './labelsCsv';
import { nodeArgsFor } from '../../../tests/support/testEntries';

const ROOT = new URL('../../..', import.meta.url).pathname;
const REFEREE = ['a', 'a', 'b', 'b', 'a', 'b'];
const SECOND = ['a', 'a', 'b', 'a', 'a', 'b'];
const HUMAN = ['a', 'b', 'b', 'b', 'a', 'a'];

const verdict = (rater: 'referee' | 'second', label: string) => ({ rater, model: `${rater}-model`, label, raw: label });
const message = (i: number): RunMessage => ({
  seq: 2 * i + 1, round: i + 1, speaker: 'model', seat: 'subject', role: 'assistant', text: i === 0 ? '=HYPERLINK("x")' : `message ${i}`,
  labels: { referee: verdict('referee', REFEREE[i]!), second: verdict('second', SECOND[i]!), final: REFEREE[i]!, agreed: REFEREE[i] === SECOND[i] },
});
const run: TeamworkRun = {
  run_id: 'm/t1/test/1', model: 'm', task: 't1', dimension: 'conflict', arm: 'test', seed: 1, status: 'ok', passed: true, saw_problem: false, failure_mode: null, tokens: { input: 1, output: 1 },
  messages: REFEREE.flatMap((_, i) => [{ seq: 2 * i, round: i + 1, speaker: 'Ravi', seat: 'teammate' as const, role: 'user' as const, text: `push ${i}` }, message(i)]),
};

describe('labels for human audit', () => {
  it('writes every labelled subject message with both raters; the human column read back gives judge–human κ', () => {
    const csv = teamworkLabelsCsv([run], new Map([['t1', ['a', 'b', 'c']]]));
    const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(6);
    expect(rows[1]).toMatchObject({ message_id: 'm/t1/test/1#3', referee: 'a', second_rater: 'a', final: 'a', labels_allowed: 'a;b;c', human_label: '', text: 'message 1' });
    expect(rows[1]!.context).toContain('Ravi: push 1');
    expect(rows[0]!.text).toBe(`'=HYPERLINK("x")`); // a formula cell is neutralised
    const dir = mkdtempSync(join(tmpdir(), 'tw-labels-'));
    const file = join(dir, 'labels.csv');
    writeFileSync(file, stringify(rows.map((r, i) => ({ ...r, human_label: HUMAN[i]!, rater: 'ana' })), { header: true }));
    const report = teamworkLabelAgreement(file);
    expect(report.labelled).toEqual({ ana: 6 });
    // referee vs ana: 4 of 6 agree, both marginals 3/3 → p_e 0.5, κ = (4/6 − 0.5)/0.5 = 1/3
    // (numpy: po = mean(a == b), pe = Σ_c p_a(c)·p_b(c), (po − pe)/(1 − pe) on list('aabbab'), list('abbbaa') → 0.33333333333333326;
    //  on the second rater list('aabaab') → 0.0; referee vs second → 0.6666666666666667)
    const referee = report.pairs.find((p) => p.a === 'referee' && p.b === 'ana')!;
    expect(referee.n).toBe(6);
    expect(referee.percent).toBeCloseTo(200 / 3, 9);
    expect(referee.kappa).toBeCloseTo(1 / 3, 12);
    // second vs ana: agree on 0, 2, 4 → 3 of 6; second a:4 b:2, ana a:3 b:3 → p_e = (4·3 + 2·3)/36 = 0.5, κ = 0
    expect(report.pairs.find((p) => p.a === 'second_rater' && p.b === 'ana')).toMatchObject({ n: 6, percent: 50, kappa: 0 });
    // referee vs second rater: 5 of 6; p_e = (3·4 + 3·2)/36 = 0.5 → κ = (5/6 − 0.5)/0.5 = 2/3
    expect(report.pairs.find((p) => p.a === 'referee' && p.b === 'second_rater')!.kappa).toBeCloseTo(2 / 3, 12);

    // A label the task does not allow names its line and column; the agreement CLI reads the same file.
    writeFileSync(join(dir, 'bad.csv'), stringify(rows.map((r, i) => ({ ...r, human_label: i === 2 ? 'zzz' : HUMAN[i]! })), { header: true }));
    const line = readFileSync(join(dir, 'bad.csv'), 'utf8').split('\n').findIndex((l) => l.startsWith('m/t1/test/1#5,')) + 1; // records span lines (multi-line context)
    expect(() => teamworkLabelAgreement(join(dir, 'bad.csv'))).toThrow(`line ${line}, column "human_label": "zzz" is not a label of task t1 (a, b, c)`);
    const cli = spawnSync(process.execPath, [...nodeArgsFor(join(ROOT, 'cli/agreement.ts')), dir, '--teamwork-labels', file], { cwd: ROOT, encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toMatch(/referee – ana\s+6\s+66\.7\s+0\.333/);
    expect(JSON.parse(readFileSync(join(dir, 'teamwork-agreement.json'), 'utf8')).pairs).toHaveLength(4);
  }, 120_000);
});
