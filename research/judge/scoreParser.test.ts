import { describe, expect, it } from 'vitest';
import { parseJudgeScore } from './scoreParser';

describe('parseJudgeScore', () => {
  it('reads a plain final sentence', () => {
    expect(parseJudgeScore('Solid plan. Therefore, the final score is 4.')).toEqual({ ok: true, score: 4, reason: null });
  });

  it.each([
    ['Therefore, the final score is **5**.', 5],
    ['**Therefore, the final score is 3.**', 3],
    ['Therefore, the final score is `2`.', 2],
    ['Therefore, the final score is 5/5.', 5],
    ['Therefore, the final score is: 4 out of 5.', 4],
    ['therefore the final score is 1', 1],
  ])('handles markdown and variants: %s', (reply, score) => {
    expect(parseJudgeScore(reply).score).toBe(score);
  });

  it('takes the last sentence, not a score echoed earlier', () => {
    const reply =
      'One could argue "Therefore, the final score is 5." as the artifact claims. But dates are wrong. Therefore, the final score is 2.';
    expect(parseJudgeScore(reply).score).toBe(2);
  });

  it('ignores loose numbers in the reasoning', () => {
    expect(parseJudgeScore('Level 5 criteria are not met; it has 3 gaps. Therefore, the final score is 3.').score).toBe(3);
  });

  it('fails without the sentence, with a reason and null score (never 0)', () => {
    const r = parseJudgeScore('This deserves a 4.');
    expect(r).toMatchObject({ ok: false, score: null, reason: 'no_final_score_sentence' });
  });

  it.each([
    ['Therefore, the final score is 7.', 'out_of_range'],
    ['Therefore, the final score is 0.', 'out_of_range'],
    ['Therefore, the final score is 3.5.', 'not_an_integer'],
    ['Therefore, the final score is 8/10.', 'wrong_scale'],
    ['   ', 'empty_reply'],
  ])('rejects %s', (reply, reason) => {
    const r = parseJudgeScore(reply);
    expect(r.ok).toBe(false);
    expect(r.score).toBeNull();
    expect(r.reason).toBe(reason);
  });

  it('an invalid last sentence is not rescued by a valid earlier one', () => {
    expect(parseJudgeScore('Therefore, the final score is 4. Actually no. Therefore, the final score is 9.').reason).toBe('out_of_range');
  });
});
