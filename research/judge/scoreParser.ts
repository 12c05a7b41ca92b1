/**
 * Reads the judge's score from its reply.
 *
 * The reply must end its reasoning with "Therefore, the final score is N." The score is taken from the
 * LAST such sentence only (an earlier echo — or a score quoted from the artifact — never wins) and
 * must be an integer 1–5. Light markdown around the number or the sentence (**5**, `5`, 5/5) is
 * accepted. Anything else is a parse failure with a reason; the score is then null, never 0.
 */

/** Bump when the parsing rules change; stored with every judgement. */
export const PARSER_VERSION = 'judge-score-parser/2';

export type ScoreParseFailure = 'empty_reply' | 'no_final_score_sentence' | 'not_an_integer' | 'out_of_range' | 'wrong_scale';

export type ScoreParse =
  | { ok: true; score: 1 | 2 | 3 | 4 | 5; reason: null }
  | { ok: false; score: null; reason: ScoreParseFailure; detail: string };

// Emphasis/code markers are dropped before matching so "**5**" and "*Therefore, ... is 5.*" parse.
const MARKDOWN_MARKERS = /[*_`~]/g;
// "Therefore, the final score is" + optional colon + a number + optional "/M" or "out of M".
const FINAL_SENTENCE =
  /therefore\s*,?\s+the\s+final\s+score\s+is\s*:?\s*(-?\d+(?:[.,]\d+)?)(?:\s*(?:\/|out\s+of)\s*(\d+))?/gi;

export function parseJudgeScore(reply: string): ScoreParse {
  const text = reply.replace(MARKDOWN_MARKERS, '');
  if (text.trim() === '') return fail('empty_reply', 'the reply was empty');
  let last: RegExpExecArray | null = null;
  for (const m of text.matchAll(FINAL_SENTENCE)) last = m;
  if (!last) return fail('no_final_score_sentence', 'no "Therefore, the final score is N." sentence found');
  const numberText = last[1] ?? '';
  const scale = last[2];
  if (scale !== undefined && Number(scale) !== 5) {
    return fail('wrong_scale', `score given on a scale of ${scale}, expected 1–5: "${last[0]}"`);
  }
  if (!/^-?\d+$/.test(numberText)) return fail('not_an_integer', `"${numberText}" is not an integer`);
  const score = Number(numberText);
  if (score < 1 || score > 5) return fail('out_of_range', `${score} is outside 1–5`);
  return { ok: true, score: score as 1 | 2 | 3 | 4 | 5, reason: null };
}

function fail(reason: ScoreParseFailure, detail: string): ScoreParse {
  return { ok: false, score: null, reason, detail };
}
