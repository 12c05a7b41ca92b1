/**
 * Checks an annotator reply: JSON (code fences tolerated), exactly one entry per requested utterance,
 * in order, with the same turn and speaker, and only labels from the guide. Any mismatch is a
 * failure with a reason that is shown to the model on the retry.
 */
import { z } from 'zod';
import { FrictionLabel, GROUNDING_ACTS, GroundingAct, Speaker, type FrictionLabel as Friction, type GroundingAct as Grounding } from '../../common/labels';

export interface ExpectedUtterance {
  turn: number;
  speaker: 'user' | 'agent';
}

export interface UtteranceLabels {
  turn: number;
  speaker: 'user' | 'agent';
  grounding: Grounding[];
  friction: Friction;
}

export type AnnotationParse = { ok: true; labels: UtteranceLabels[] } | { ok: false; reason: string };

const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);
const Entry = z.object({
  turn: z.coerce.number().int(),
  speaker: z.preprocess(lower, Speaker),
  grounding: z.preprocess((v) => (typeof v === 'string' ? (v === '' ? [] : v.split(/[;,]/)) : v), z.array(z.preprocess(lower, GroundingAct))),
  friction: z.preprocess(lower, FrictionLabel),
});

function extractJson(reply: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(reply);
  const body = (fenced?.[1] ?? reply).trim();
  const start = body.search(/[[{]/);
  const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
  if (start < 0 || end < start) throw new Error('no JSON object in the reply');
  return JSON.parse(body.slice(start, end + 1));
}

export function parseAnnotationReply(reply: string, expected: readonly ExpectedUtterance[]): AnnotationParse {
  let data: unknown;
  try {
    data = extractJson(reply);
  } catch (err) {
    return { ok: false, reason: `not valid JSON (${(err as Error).message})` };
  }
  const list = Array.isArray(data) ? data : (data as { annotations?: unknown })?.annotations;
  if (!Array.isArray(list)) return { ok: false, reason: 'no "annotations" array' };
  if (list.length !== expected.length) {
    return { ok: false, reason: `expected ${expected.length} entries, got ${list.length}` };
  }
  const labels: UtteranceLabels[] = [];
  for (let i = 0; i < list.length; i++) {
    const parsed = Entry.safeParse(list[i]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, reason: `entry ${i}: ${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'}` };
    }
    const want = expected[i] as ExpectedUtterance;
    if (parsed.data.turn !== want.turn) return { ok: false, reason: `entry ${i}: turn ${parsed.data.turn}, expected ${want.turn}` };
    if (parsed.data.speaker !== want.speaker) {
      return { ok: false, reason: `entry ${i} (turn ${want.turn}): speaker "${parsed.data.speaker}", expected "${want.speaker}"` };
    }
    const unique = GROUNDING_ACTS.filter((g) => parsed.data.grounding.includes(g));
    labels.push({ turn: want.turn, speaker: want.speaker, grounding: unique, friction: parsed.data.friction });
  }
  return { ok: true, labels };
}
