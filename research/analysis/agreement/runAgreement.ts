import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { iccInference, type IccInferences } from './iccInference';
import { intraclassCorrelation, type IntraclassCorrelations } from './intraclassCorrelation';
import { labelAgreement, type LabelAgreement } from './labelAgreement';
import { listwiseComplete } from './listwiseComplete';
import { scoreAgreement, type ScoreAgreement } from './scoreAgreement';
import { InputError } from './io/inputError';
import { ANNOTATOR_RATER, JUDGE_RATER, type RatingsByRater } from './io/raterName';
import { readCsvTable } from './io/readCsvTable';
import { readJudgeScores, type JudgeScoreSource } from './io/readJudgeScores';
import { checkSpeakersAgree, readAnnotationsCsv, readLabelsCsv, type LabelsByRater } from './io/readLabelsCsv';
import { readRatingsCsv } from './io/readRatingsCsv';
import { krippendorffAlpha } from './krippendorffAlpha';
import { fleissKappa } from './fleissKappa';
import type { Estimate } from './estimate';

export const AGREEMENT_SCHEMA_VERSION = 1;

export interface AgreementInputs {
  datasetDir: string;
  /** human ratings CSV (session_id, rater, score) */
  ratingsFile?: string;
  /** human labels CSV (annotations.csv columns + rater) */
  labelsFile?: string;
}

export type ScorePair = { rater_a: string; rater_b: string } & ScoreAgreement;
export type LabelPair = { rater_a: string; rater_b: string } & LabelAgreement;

/** A k-rater ICC over the sessions every rater of the group scored (listwise complete). */
export interface RaterGroup {
  group: 'humans' | 'judge_and_humans';
  raters: string[];
  n: number;
  icc: IntraclassCorrelations;
  icc_ci95: IccInferences;
}

/** The content of agreement.json. */
export interface AgreementReport {
  schema_version: number;
  judge_source: JudgeScoreSource | null;
  /** score raters: "judge" (when the dataset has judge scores) then the humans, sorted */
  score_raters: { rater: string; n: number }[];
  scores: ScorePair[];
  /** ICC across all human raters, and across the judge and all humans (k ≥ 3 only) */
  groups: RaterGroup[];
  /** label raters: "llm" (when the dataset has annotations.csv) then the humans, sorted */
  label_raters: { rater: string; n: number }[];
  labels: LabelPair[];
  /** Krippendorff's α (all score raters, missing allowed) and Fleiss' κ (sessions every rater scored). */
  reliability: ScoreReliability | null;
  /** things the reader should know (no judge scores, a rater with nothing in common, …) */
  notes: string[];
}

export interface ScoreReliability {
  raters: string[];
  /** sessions with at least two scores (pairable for α) */
  units: number;
  krippendorff_alpha: { nominal: Estimate; ordinal: Estimate; interval: Estimate };
  /** over the sessions every rater scored with an integer 1–5 score */
  fleiss_kappa: { n: number; kappa: Estimate };
}

const SessionRow = z.object({ session_id: z.string().min(1, 'session_id is empty'), task: z.string().optional() });

/** Sessions listed in the dataset's sessions.csv (with task when present), or null without the file. */
export function readDatasetSessions(datasetDir: string): { session_id: string; task?: string }[] | null {
  const file = join(datasetDir, 'sessions.csv');
  if (!existsSync(file)) return null;
  return readCsvTable(file, SessionRow, ['session_id']).map((row) => row.value);
}

/**
 * Reads the dataset's judge scores and annotations plus the human files, and computes agreement
 * between the model rater and each human and between every pair of humans (pairwise complete).
 */
export function runAgreement(inputs: AgreementInputs): AgreementReport {
  if (!existsSync(inputs.datasetDir)) throw new InputError('dataset directory not found', inputs.datasetDir);
  const notes: string[] = [];
  const sessions = readDatasetSessions(inputs.datasetDir);
  const knownSessions = sessions ? new Set(sessions.map((s) => s.session_id)) : undefined;

  const judge = readJudgeScores(inputs.datasetDir);
  const scoreRaters: RatingsByRater = new Map();
  if (judge) scoreRaters.set(JUDGE_RATER, judge.scores);
  else notes.push('no judge scores in the dataset (quality.csv, judgements.csv or sessions.csv quality); judge pairs skipped');
  if (inputs.ratingsFile) {
    for (const [rater, scores] of sortedEntries(readRatingsCsv(inputs.ratingsFile, knownSessions))) scoreRaters.set(rater, scores);
  }

  const labelRaters: LabelsByRater = new Map();
  if (inputs.labelsFile) {
    const annotations = join(inputs.datasetDir, 'annotations.csv');
    if (existsSync(annotations)) {
      for (const [rater, labels] of readAnnotationsCsv(annotations)) labelRaters.set(rater, labels);
    } else notes.push('no annotations.csv in the dataset; LLM annotator pairs skipped');
    for (const [rater, labels] of sortedEntries(readLabelsCsv(inputs.labelsFile))) labelRaters.set(rater, labels);
    checkSpeakersAgree(labelRaters);
  }

  const scores = allPairs([...scoreRaters.keys()]).map(([a, b]): ScorePair => {
    const result = scoreAgreement(scoreRaters.get(a)!, scoreRaters.get(b)!);
    if (result.n === 0) notes.push(`raters ${a} and ${b} scored no session in common`);
    return { rater_a: a, rater_b: b, ...result };
  });
  const groups = raterGroups(scoreRaters, notes);
  const labels = allPairs([...labelRaters.keys()]).map(([a, b]): LabelPair => {
    const result = labelAgreement(labelRaters.get(a)!, labelRaters.get(b)!);
    if (result.n === 0) notes.push(`annotators ${a} and ${b} labelled no utterance in common`);
    return { rater_a: a, rater_b: b, ...result };
  });
  return {
    schema_version: AGREEMENT_SCHEMA_VERSION,
    judge_source: judge?.source ?? null,
    score_raters: [...scoreRaters].map(([rater, s]) => ({ rater, n: s.size })),
    scores,
    groups,
    label_raters: [...labelRaters].map(([rater, l]) => ({ rater, n: l.size })),
    labels,
    reliability: scoreReliability(scoreRaters),
    notes,
  };
}

/** α and Fleiss' κ across every score rater (null with fewer than two raters). */
function scoreReliability(scoreRaters: RatingsByRater): ScoreReliability | null {
  const raters = [...scoreRaters.keys()];
  if (raters.length < 2) return null;
  const sessions = [...new Set(raters.flatMap((r) => [...scoreRaters.get(r)!.keys()]))].sort();
  const units = sessions.map((s) => raters.map((r) => scoreRaters.get(r)!.get(s)).filter((v): v is number => v !== undefined));
  const complete = units.filter((u) => u.length === raters.length && u.every(Number.isInteger));
  return {
    raters,
    units: units.filter((u) => u.length >= 2).length,
    krippendorff_alpha: {
      nominal: krippendorffAlpha(units, 'nominal'),
      ordinal: krippendorffAlpha(units, 'ordinal'),
      interval: krippendorffAlpha(units, 'interval'),
    },
    fleiss_kappa: { n: complete.length, kappa: fleissKappa(complete) },
  };
}

function raterGroups(scoreRaters: RatingsByRater, notes: string[]): RaterGroup[] {
  const humans = [...scoreRaters.keys()].filter((r) => r !== JUDGE_RATER);
  const candidates: [RaterGroup['group'], string[]][] = [['humans', humans]];
  if (scoreRaters.has(JUDGE_RATER)) candidates.push(['judge_and_humans', [JUDGE_RATER, ...humans]]);
  return candidates
    .filter(([, raters]) => raters.length >= 3)
    .map(([group, raters]) => {
      const complete = listwiseComplete(raters.map((r) => scoreRaters.get(r)!));
      if (complete.keys.length < 2) notes.push(`group ${group}: fewer than 2 sessions were scored by all of ${raters.join(', ')}`);
      return {
        group,
        raters,
        n: complete.keys.length,
        icc: intraclassCorrelation(complete.matrix),
        icc_ci95: iccInference(complete.matrix),
      };
    });
}

/** Pairs in order: the first rater (the model, when present) with each other, then the rest. */
function allPairs(raters: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  raters.forEach((a, i) => raters.slice(i + 1).forEach((b) => pairs.push([a, b])));
  return pairs;
}

function sortedEntries<V>(map: Map<string, V>): [string, V][] {
  return [...map].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}

export { ANNOTATOR_RATER, JUDGE_RATER };
