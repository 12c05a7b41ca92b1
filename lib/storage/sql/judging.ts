/** The judge's and annotator's tables (judgements, judge_quality, annotations) on both engines. */
import { judgementUpsertSql } from '../rows/judgements';
import { both } from './engineSql';

/** Q of one judged unit (a session or a group), replaced by the last one set. */
function qualityUpsertSql(table: string, key: string, version: string): string {
  return `INSERT INTO ${table} (${key}, ${version}, rubric_id, rubric_hash, requested_model, quality, samples, parsed, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (${key}) DO UPDATE SET ${version} = excluded.${version}, rubric_id = excluded.rubric_id,
         rubric_hash = excluded.rubric_hash, requested_model = excluded.requested_model, quality = excluded.quality,
         samples = excluded.samples, parsed = excluded.parsed, updated_at = excluded.updated_at`;
}

export const JUDGEMENT_SQL = {
  /** Parameters: judgementValues(j). Replaces every non-key column of an earlier sample with the same key. */
  upsert: both(judgementUpsertSql(() => '?')),
  listForSession: both('SELECT * FROM judgements WHERE session_id = ? ORDER BY artifact_version, rubric_id, requested_model, sample'),
  /** Every sample of a study's sessions, by session then sample (for exports). */
  listForStudy: both(`SELECT j.* FROM judgements j JOIN sessions s ON s.id = j.session_id
         WHERE s.study_id = ? ORDER BY s.created_at, j.session_id, j.artifact_version, j.rubric_id, j.requested_model, j.sample`),
  /** Parameters: sessionQualityValues(q). */
  setQuality: both(qualityUpsertSql('judge_quality', 'session_id', 'artifact_version')),
  getQuality: both('SELECT * FROM judge_quality WHERE session_id = ?'),
} as const;

export const ANNOTATION_SQL = {
  /** Parameters: annotationValues(a). Inserts or replaces the annotation of (session, turn). */
  upsert: both(`INSERT INTO annotations (session_id, turn, message_id, speaker, friction, grounding, guide_hash,
    requested_model, reported_model, provider, provider_url, method, failure_reason, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (session_id, turn) DO UPDATE SET message_id = excluded.message_id, speaker = excluded.speaker,
    friction = excluded.friction, grounding = excluded.grounding, guide_hash = excluded.guide_hash,
    requested_model = excluded.requested_model, reported_model = excluded.reported_model, provider = excluded.provider,
    provider_url = excluded.provider_url, method = excluded.method, failure_reason = excluded.failure_reason,
    created_at = excluded.created_at`),
  listForSession: both('SELECT * FROM annotations WHERE session_id = ? ORDER BY turn'),
  /** Every annotation of a study's sessions, by session then turn (for exports). */
  listForStudy: both('SELECT a.* FROM annotations a JOIN sessions s ON s.id = a.session_id WHERE s.study_id = ? ORDER BY s.created_at, a.session_id, a.turn'),
} as const;

/** A group's shared document judged as the group's artifact (migration 031), keyed like JUDGEMENT_SQL by group. */
export const GROUP_JUDGEMENT_SQL = {
  /** Parameters: groupJudgementValues(j). */
  upsert: both(judgementUpsertSql(() => '?', 'group_judgements')),
  listForGroup: both('SELECT * FROM group_judgements WHERE group_id = ? ORDER BY doc_version, rubric_id, requested_model, sample'),
  /** Every sample of a study's groups, by group formation then sample (for exports). */
  listForStudy: both(`SELECT j.* FROM group_judgements j JOIN study_groups g ON g.id = j.group_id
         WHERE g.study_id = ? ORDER BY g.formed_at, j.group_id, j.doc_version, j.rubric_id, j.requested_model, j.sample`),
  /** Parameters: groupQualityValues(q). */
  setQuality: both(qualityUpsertSql('group_judge_quality', 'group_id', 'doc_version')),
  getQuality: both('SELECT * FROM group_judge_quality WHERE group_id = ?'),
} as const;
