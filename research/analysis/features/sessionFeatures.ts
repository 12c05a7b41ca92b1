import { SPEAKER_AGENT, type AnnotationTable } from '../input/annotationsFile';

export const SPEAKERS = ['user', 'agent', 'combined'] as const;
export type Speaker = (typeof SPEAKERS)[number];
export const ANY_FRICTION = 'any_friction';
/** Share of a session's turns (in turn order) that counts as its opening: ceil(30% of turns). */
export const OPENING_SHARE = 0.3;

/**
 * Per-session label counts by speaker, for all turns and for the opening 30% of turns.
 * counts[((s·3 + speaker)·L) + label]; turns[s·3 + speaker]. Speaker 0 user, 1 agent, 2 combined.
 * `labels` are the annotation labels (friction other than none, and grounding) sorted, plus any_friction.
 */
export interface SessionFeatures {
  labels: string[];
  nSessions: number;
  counts: Float64Array;
  turns: Float64Array;
  openingCounts: Float64Array;
  openingTurns: Float64Array;
}

/**
 * Counts, for every session and speaker, the turns that carry each label (a turn carries a label when
 * its friction is that label or its grounding list contains it; any_friction = friction other than
 * none). Also counts the same within the first ceil(30%) of each session's turns, ordered by turn.
 */
export function sessionFeatures(annotations: AnnotationTable | null, nSessions: number): SessionFeatures {
  const labels = [...(annotations?.labels ?? []), ANY_FRICTION];
  const order = labels.map((_, i) => i).sort((a, b) => (labels[a]! < labels[b]! ? -1 : 1));
  const position = new Int32Array(labels.length);
  order.forEach((id, pos) => (position[id] = pos));
  const L = labels.length;
  const out: SessionFeatures = {
    labels: order.map((i) => labels[i]!),
    nSessions,
    counts: new Float64Array(nSessions * 3 * L),
    turns: new Float64Array(nSessions * 3),
    openingCounts: new Float64Array(nSessions * 3 * L),
    openingTurns: new Float64Array(nSessions * 3),
  };
  if (!annotations || annotations.size === 0) return out;
  const a = annotations;
  const anyFriction = position[L - 1]!;
  const rows = rowsBySessionInTurnOrder(a, nSessions);
  const seen = new Int32Array(L).fill(-1);
  for (let s = 0; s < nSessions; s++) {
    const start = rows.start[s]!;
    const end = rows.start[s + 1]!;
    const opening = start + Math.ceil(OPENING_SHARE * (end - start));
    for (let k = start; k < end; k++) {
      const r = rows.order[k]!;
      const sp = a.speaker[r] === SPEAKER_AGENT ? 1 : 0;
      const inOpening = k < opening;
      const base = (s * 3 + sp) * L;
      out.turns[s * 3 + sp]! += 1;
      if (inOpening) out.openingTurns[s * 3 + sp]! += 1;
      // a label counts once per turn (friction and grounding may name the same label)
      const f = a.friction[r]!;
      if (f >= 0) {
        countLabel(out, seen, r, base, position[f]!, inOpening);
        countLabel(out, seen, r, base, anyFriction, inOpening);
      }
      for (let g = a.groundingStart[r]!; g < a.groundingStart[r + 1]!; g++) {
        countLabel(out, seen, r, base, position[a.groundingIds[g]!]!, inOpening);
      }
    }
    // combined = user + agent
    for (const [counts, turns] of [[out.counts, out.turns], [out.openingCounts, out.openingTurns]] as const) {
      turns[s * 3 + 2] = turns[s * 3]! + turns[s * 3 + 1]!;
      for (let l = 0; l < L; l++) counts[(s * 3 + 2) * L + l] = counts[s * 3 * L + l]! + counts[(s * 3 + 1) * L + l]!;
    }
  }
  return out;
}

function countLabel(out: SessionFeatures, seen: Int32Array, row: number, base: number, pos: number, inOpening: boolean): void {
  if (seen[pos] === row) return;
  seen[pos] = row;
  out.counts[base + pos]! += 1;
  if (inOpening) out.openingCounts[base + pos]! += 1;
}

/** Row indices grouped by session (counting sort), each session's rows ordered by turn. */
function rowsBySessionInTurnOrder(a: AnnotationTable, nSessions: number): { start: Uint32Array; order: Uint32Array } {
  const start = new Uint32Array(nSessions + 1);
  for (let r = 0; r < a.size; r++) start[a.session[r]! + 1]! += 1;
  for (let s = 0; s < nSessions; s++) start[s + 1]! += start[s]!;
  const fill = start.slice(0, nSessions);
  const order = new Uint32Array(a.size);
  for (let r = 0; r < a.size; r++) order[fill[a.session[r]!]!++] = r;
  for (let s = 0; s < nSessions; s++) {
    const slice = order.subarray(start[s]!, start[s + 1]!);
    let sorted = true;
    for (let k = 1; k < slice.length && sorted; k++) sorted = a.turn[slice[k - 1]!]! <= a.turn[slice[k]!]!;
    if (!sorted) slice.sort((x, y) => a.turn[x]! - a.turn[y]! || x - y);
  }
  return { start, order };
}

export type FeatureKind = 'rate' | 'count' | 'opening_rate';

/**
 * One feature's value for each of the given sessions: a count, or a rate (count / the speaker's turns).
 * A rate is NaN (missing) when the speaker has no turns in the session (or in its opening): 0 of 0 turns
 * is not "never", so such sessions are left out of rate comparisons (with n reported) instead of
 * counting as 0.
 */
export function featureValues(
  f: SessionFeatures,
  speaker: number,
  label: number,
  kind: FeatureKind,
  sessions: ArrayLike<number>,
): Float64Array {
  const L = f.labels.length;
  const counts = kind === 'opening_rate' ? f.openingCounts : f.counts;
  const turns = kind === 'opening_rate' ? f.openingTurns : f.turns;
  const out = new Float64Array(sessions.length);
  for (let k = 0; k < sessions.length; k++) {
    const s = sessions[k]!;
    const c = counts[(s * 3 + speaker) * L + label]!;
    if (kind === 'count') out[k] = c;
    else {
      const t = turns[s * 3 + speaker]!;
      out[k] = t === 0 ? NaN : c / t;
    }
  }
  return out;
}

/**
 * featureValues of every speaker and label at once for the given sessions: out[speaker·L + label][k] is
 * featureValues(f, speaker, label, kind, sessions)[k]. One pass reads each session's counts where they lie
 * (side by side), instead of one pass per feature jumping a whole row ahead for every value.
 */
export function featureColumns(f: SessionFeatures, kind: FeatureKind, sessions: ArrayLike<number>): Float64Array[] {
  const L = f.labels.length;
  const counts = kind === 'opening_rate' ? f.openingCounts : f.counts;
  const turns = kind === 'opening_rate' ? f.openingTurns : f.turns;
  const n = sessions.length;
  const out = Array.from({ length: 3 * L }, () => new Float64Array(n));
  for (let k = 0; k < n; k++) {
    const s = sessions[k]!;
    for (let speaker = 0; speaker < 3; speaker++) {
      const base = (s * 3 + speaker) * L;
      const t = turns[s * 3 + speaker]!;
      for (let label = 0; label < L; label++) {
        const c = counts[base + label]!;
        out[speaker * L + label]![k] = kind === 'count' ? c : t === 0 ? NaN : c / t;
      }
    }
  }
  return out;
}
