/**
 * The dataset export's reads (both engines' exportSnapshot.ts). SQLite's reader opens a file read-only without
 * migrating it, so a file from before migration 009/010/012/013 may lack a table or column: the queries that read
 * one come in the form for a current schema and, where needed, one for an older file (`…WithoutX`).
 */
import { REVIEW_EXPORT_COLUMNS, REVIEW_EXPORT_JOIN } from '../rows/reviewExport';
import { both, variant } from './engineSql';

const SESSION_AGGREGATES = `
        (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
        (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens,
        (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_turns,
        (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_turns`;

/**
 * Sessions of the study in creation order with their aggregates; answers as a JSON array of [item, kind, value]
 * by item id (json_group_array on SQLite, json_agg on PostgreSQL: rows/exportSnapshot.ts takes both).
 * Parameters: study, include pilots (0/1 on SQLite, a boolean on PostgreSQL).
 */
const exportSessions = (quality: string) =>
  variant('json', {
    sqlite: `SELECT s.id, s.task_id, s.condition_id, s.status, s.is_pilot, s.created_at, s.consented_at, s.submitted_at,${SESSION_AGGREGATES},
        ${quality} AS quality,
        (SELECT json_group_array(json_array(a.item_id, a.item_kind, a.value_num) ORDER BY a.item_id) FROM survey_answers a
           WHERE a.session_id = s.id AND a.value_num IS NOT NULL) AS answers
      FROM sessions s
      WHERE s.study_id = ? AND (s.is_pilot = 0 OR ?)
      ORDER BY s.created_at, s.id`,
    postgres: `SELECT s.id, s.task_id, s.condition_id, s.status, s.is_pilot, s.created_at, s.consented_at, s.submitted_at,${SESSION_AGGREGATES},
        ${quality} AS quality,
        (SELECT json_agg(json_build_array(a.item_id, a.item_kind, a.value_num) ORDER BY a.item_id) FROM survey_answers a
           WHERE a.session_id = s.id AND a.value_num IS NOT NULL) AS answers
      FROM sessions s
      WHERE s.study_id = $1 AND (s.is_pilot = 0 OR $2)
      ORDER BY s.created_at, s.id`,
  });

/** A judged unit's samples: a session's (judgements, by artifact_version) or a group's (group_judgements, by doc_version). */
const judgementSamples = (table: string, key: string, version: string, images: string) =>
  both(`SELECT ${version}, rubric_id, rubric_hash, COALESCE(reported_model, requested_model) AS model, sample, score, parse_ok, cached, ${images}
       FROM ${table} WHERE ${key} = ? ORDER BY ${version}, rubric_id, requested_model, sample`);
const judgements = (images: string) => judgementSamples('judgements', 'session_id', 'artifact_version', images);

export const EXPORT_SQL = {
  study: both('SELECT id, title, status FROM studies WHERE id = ?'),
  /** Parameters: study, include pilots (as for sessions). */
  countSessions: both('SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND (is_pilot = 0 OR ?)'),
  countPilotSessions: both('SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 1'),
  /** Ids of Likert items answered in the study, sorted (used when no survey definition is given). */
  likertItemIds: both(`SELECT DISTINCT a.item_id FROM survey_answers a JOIN sessions s ON s.id = a.session_id
       WHERE s.study_id = ? AND a.item_kind = 'likert' ORDER BY a.item_id`),
  sessions: exportSessions('(SELECT q.quality FROM judge_quality q WHERE q.session_id = s.id)'),
  sessionsWithoutJudgeQuality: exportSessions('NULL'),
  identity: both('SELECT * FROM identities WHERE session_id = ?'),
  identities: both('SELECT * FROM identities WHERE study_id = ? ORDER BY created_at, session_id'),
  /** Trajectory order, as messages.listForSession; the export numbers them 1, 2, … */
  messages: both(`SELECT m.role, m.text, m.created_at, m.tokens, m.model, m.ttft_ms, m.duration_ms, m.finish_reason, m.interrupted, m.status, ${REVIEW_EXPORT_COLUMNS}
       FROM messages m ${REVIEW_EXPORT_JOIN} WHERE m.session_id = ? ORDER BY m.event_seq, m.created_at, m.id`),
  events: both('SELECT seq, type, payload, server_ts, client_ts FROM events WHERE session_id = ? ORDER BY seq'),
  artifacts: both('SELECT version, fields, submitted_at FROM artifacts WHERE session_id = ? ORDER BY version'),
  uploads: both('SELECT id, field_id, file_name, content_type, storage_path FROM uploads WHERE session_id = ? ORDER BY created_at, id'),
  judgements: judgements('images'),
  /** A file from before migration 012 has no images column. */
  judgementsWithoutImages: judgements('NULL AS images'),
  /** A group's shared-document samples (migration 031, which has the images column from the start). */
  groupJudgements: judgementSamples('group_judgements', 'group_id', 'doc_version', 'images'),
  groupQuality: both('SELECT quality FROM group_judge_quality WHERE group_id = ?'),
  annotations: both('SELECT turn, speaker, friction, grounding FROM annotations WHERE session_id = ? AND friction IS NOT NULL ORDER BY turn'),
  telemetry: both('SELECT summary, batches FROM session_telemetry WHERE session_id = ?'),
  /** Sessions the simulator played (migration 030). */
  simulatedSessions: both('SELECT id FROM sessions WHERE study_id = ? AND simulated = 1 ORDER BY id'),
  tombstones: both('SELECT tombstone FROM withdrawals WHERE study_id = ? ORDER BY tombstone'),
} as const;
