import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError } from './inputError';
import { readCsvTable } from './readCsvTable';

export type JudgeScoreSource = 'quality.csv' | 'judgements.csv' | 'sessions.csv';

export interface JudgeScores {
  source: JudgeScoreSource;
  /** session_id → Q; sessions whose samples all failed to parse are absent (missing, not 0) */
  scores: Map<string, number>;
}

const quality = z
  .string()
  .refine((s) => s === '' || (/^\d+(\.\d+)?$/.test(s) && Number(s) >= 1 && Number(s) <= 5 && Number.isInteger(Number(s) * 2)), {
    message: 'quality must be empty or a number 1–5 in steps of 0.5',
  });

const QualityRow = z.object({ session_id: z.string().min(1, 'session_id is empty'), quality });

const JudgementRow = z.object({
  session_id: z.string().min(1, 'session_id is empty'),
  // present in exports; samples of older artifact versions are ignored
  artifact_version: z.string().regex(/^\d*$/, 'artifact_version must be an integer or empty').optional(),
  rubric_hash: z.string(),
  score: z.string().regex(/^([1-5])?$/, 'score must be an integer 1–5 or empty'),
  parse_ok: z.enum(['true', 'false', '1', '0', 'TRUE', 'FALSE'], { message: 'parse_ok must be true or false' }),
});

/**
 * The LLM judge as a rater: Q per session from the dataset directory, preferring the judge's own
 * `quality.csv` (session_id, quality, samples, parsed), else the `quality` column of `sessions.csv`
 * (what an export carries), else the median of the parsed samples of each session's latest artifact
 * version in `judgements.csv`. Returns null when none has scores.
 */
export function readJudgeScores(datasetDir: string): JudgeScores | null {
  const qualityFile = join(datasetDir, 'quality.csv');
  if (existsSync(qualityFile)) return { source: 'quality.csv', scores: fromQualityColumn(qualityFile) };
  const sessionsFile = join(datasetDir, 'sessions.csv');
  if (existsSync(sessionsFile)) {
    const scores = fromQualityColumn(sessionsFile, true);
    if (scores.size > 0) return { source: 'sessions.csv', scores };
  }
  const judgementsFile = join(datasetDir, 'judgements.csv');
  if (existsSync(judgementsFile)) return { source: 'judgements.csv', scores: fromJudgements(judgementsFile) };
  return null;
}

function fromQualityColumn(file: string, optional = false): Map<string, number> {
  const scores = new Map<string, number>();
  const schema = optional ? QualityRow.partial({ quality: true }) : QualityRow;
  const rows = readCsvTable(file, schema, optional ? ['session_id'] : ['session_id', 'quality']);
  for (const { value } of rows) {
    if (value.quality !== undefined && value.quality !== '') scores.set(value.session_id, Number(value.quality));
  }
  return scores;
}

function fromJudgements(file: string): Map<string, number> {
  const rows = readCsvTable(file, JudgementRow, ['session_id', 'rubric_hash', 'score', 'parse_ok']);
  const version = (v: { artifact_version?: string | undefined }) => (v.artifact_version ? Number(v.artifact_version) : -1);
  const latest = new Map<string, number>();
  for (const { value } of rows) latest.set(value.session_id, Math.max(latest.get(value.session_id) ?? -1, version(value)));
  const samples = new Map<string, { hash: string; line: number; scores: number[] }>();
  for (const { line, value } of rows) {
    if (version(value) !== latest.get(value.session_id)) continue;
    const entry = samples.get(value.session_id) ?? { hash: value.rubric_hash, line, scores: [] };
    if (entry.hash !== value.rubric_hash) {
      throw new InputError(
        `session "${value.session_id}" was judged with two rubric versions (${entry.hash} on line ${entry.line}, ${value.rubric_hash} here); keep one`,
        file,
        line,
        'rubric_hash',
      );
    }
    const parsed = value.parse_ok === 'true' || value.parse_ok === '1' || value.parse_ok === 'TRUE';
    if (parsed && value.score !== '') entry.scores.push(Number(value.score));
    samples.set(value.session_id, entry);
  }
  const scores = new Map<string, number>();
  for (const [session, entry] of samples) {
    const q = median(entry.scores);
    if (q !== null) scores.set(session, q);
  }
  return scores;
}

/** Median of the parsed samples (mean of the middle two for an even count); null when none parsed. */
function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
