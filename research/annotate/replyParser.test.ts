import { describe, expect, it } from 'vitest';
import { parseAnnotationReply } from './replyParser';

const expected = [
  { turn: 0, speaker: 'user' as const },
  { turn: 1, speaker: 'agent' as const },
];
const entry = (turn: number, speaker: string, grounding: unknown = ['response'], friction = 'none') => ({ turn, speaker, grounding, friction });

describe('parseAnnotationReply', () => {
  it('accepts a valid reply, also inside a code fence, normalising case and duplicates', () => {
    const body = JSON.stringify({ annotations: [entry(0, 'user', ['Followup']), entry(1, 'Agent', ['response', 'acknowledgement', 'response'], 'Probing')] });
    const r = parseAnnotationReply('Here you go:\n```json\n' + body + '\n```', expected);
    expect(r).toEqual({
      ok: true,
      labels: [
        { turn: 0, speaker: 'user', grounding: ['followup'], friction: 'none' },
        { turn: 1, speaker: 'agent', grounding: ['acknowledgement', 'response'], friction: 'probing' },
      ],
    });
  });

  it('accepts a bare array and an empty grounding list', () => {
    const r = parseAnnotationReply(JSON.stringify([entry(0, 'user', []), entry(1, 'agent')]), expected);
    expect(r.ok && r.labels[0]!.grounding).toEqual([]);
  });

  it.each([
    ['not JSON', 'I think turn 0 is a followup.', /not valid JSON/],
    ['no array', '{"labels": []}', /no "annotations" array/],
    ['a count mismatch', JSON.stringify({ annotations: [entry(0, 'user')] }), /expected 2 entries, got 1/],
    ['a wrong speaker', JSON.stringify({ annotations: [entry(0, 'user'), entry(1, 'user')] }), /turn 1\): speaker "user", expected "agent"/],
    ['a wrong turn', JSON.stringify({ annotations: [entry(0, 'user'), entry(2, 'agent')] }), /entry 1: turn 2, expected 1/],
    ['an unknown grounding act', JSON.stringify({ annotations: [entry(0, 'user', ['greeting']), entry(1, 'agent')] }), /entry 0: grounding.0/],
    ['two friction labels', JSON.stringify({ annotations: [entry(0, 'user'), entry(1, 'agent', ['response'], 'probing;reinforcement')] }), /entry 1: friction/],
  ])('rejects %s with a reason', (_label, reply, reason) => {
    const r = parseAnnotationReply(reply, expected);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});
