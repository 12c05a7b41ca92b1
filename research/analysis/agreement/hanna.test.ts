// Realistic check on real human and LLM-judge ratings: the HANNA story-evaluation benchmark
// (Chhun et al., TACL 2024; dig-team/hanna-benchmark-asg @ 282f275, MIT licence — see
// tests/fixtures/agreement/hanna/LICENSE.hanna). Reference values from
// `python3 tests/fixtures/agreement/hanna/reference_hanna.py` (numpy/scipy 1.17; kappa and ICC by the
// explicit formulas of tests/fixtures/agreement/reference.py, each cross-checked by a second formula).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { expectClose } from '../../../tests/support/expectClose';
import { iccInference } from './iccInference';
import { intraclassCorrelation } from './intraclassCorrelation';
import { scoreAgreement } from './scoreAgreement';

const rows = parse(readFileSync(resolve(import.meta.dirname, '../../../tests/fixtures/agreement/hanna/hanna_relevance.csv'), 'utf8'), {
  columns: true,
}) as Record<string, string>[];
const story = (r: Record<string, string>) => `${r.prompt_id}/${r.system}`;
const column = (name: string) => new Map(rows.map((r) => [story(r), Number(r[name])]));

describe('HANNA Relevance ratings (1,056 stories)', () => {
  it('human 1 vs human 2: kappa on the 1..5 scale and Spearman', () => {
    const a = scoreAgreement(column('Human 1 RE'), column('Human 2 RE'));
    expect(a.n).toBe(1056);
    expect(a.kappa.n).toBe(1056);
    // r.kappa(h1, h2, [1,2,3,4,5], w)
    expectClose(a.kappa.unweighted.value, 0.07609193191207297);
    expectClose(a.kappa.linear.value, 0.10567818629268955);
    expectClose(a.kappa.quadratic.value, 0.15548969798423096);
    // scipy.stats.spearmanr(h1, h2).statistic
    expectClose(a.spearman.value, 0.18062303657268028);
  });

  it('three human raters: all six ICC forms', () => {
    const matrix = rows.map((r) => [Number(r['Human 1 RE']), Number(r['Human 2 RE']), Number(r['Human 3 RE'])]);
    const icc = intraclassCorrelation(matrix);
    // r.icc(h)
    expectClose(icc.icc1.value, 0.13762234276467702);
    expectClose(icc.icc1k.value, 0.32375514517251247);
    expectClose(icc.a1.value, 0.13847185571084666);
    expectClose(icc.ak.value, 0.32532018711305166);
    expectClose(icc.c1.value, 0.1388822871498022);
    expectClose(icc.ck.value, 0.3260748261688097);
    // r.icc_inference(h): icc1 [0.09996296481737334, 0.17655701526754403] p 3.64017298201874e-14,
    //                     ak [0.2518444688208838, 0.39271610709880983] p 2.2093675055669628e-14
    const ci = iccInference(matrix);
    expectClose(ci.icc1!.lower, 0.09996296481737334, 1e-12);
    expectClose(ci.icc1!.upper, 0.17655701526754403, 1e-12);
    expectClose(ci.icc1!.p, 3.64017298201874e-14, 1e-6);
    expectClose(ci.ak!.lower, 0.2518444688208838, 1e-12);
    expectClose(ci.ak!.upper, 0.39271610709880983, 1e-12);
    expectClose(ci.ak!.p, 2.2093675055669628e-14, 1e-6);
  });

  it('ChatGPT judge vs the human average: Spearman and ICC; kappa skips non-integer scores', () => {
    const a = scoreAgreement(column('ChatGPT RE 1'), column('Relevance'));
    // stats.spearmanr(chatgpt, human_avg) → (0.3654539197796648, 1.0328770921872964e-34)
    expectClose(a.spearman.value, 0.3654539197796648);
    expectClose(a.spearman.p, 1.0328770921872964e-34, 1e-6);
    // r.icc(np.array([chatgpt, human_avg]).T)
    expectClose(a.icc.icc1.value, 0.2591375205051753);
    expectClose(a.icc.icc1k.value, 0.4116111485601786);
    expectClose(a.icc.a1.value, 0.3334986667507863);
    expectClose(a.icc.ak.value, 0.5001859770334707);
    expectClose(a.icc.c1.value, 0.4172603964062694);
    expectClose(a.icc.ck.value, 0.5888267215598654);
    // r.icc_inference(...)['a1'] → [0.1141932763935861, 0.49611268535989955], p 4.409141294324174e-46
    expectClose(a.icc_ci95.a1!.lower, 0.1141932763935861, 1e-12);
    expectClose(a.icc_ci95.a1!.upper, 0.49611268535989955, 1e-12);
    expectClose(a.icc_ci95.a1!.p, 4.409141294324174e-46, 1e-6);
    expect(a.kappa.n).toBeLessThan(a.n);
  });
});
