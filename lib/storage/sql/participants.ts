/** Queries of the participant-side tables (studies, identities, tokens, drafts and versions, uploads, survey, telemetry, checkpoints). */
import { both, postgresOnly, variant } from './engineSql';
import { SCREENING_SURVEY_ID } from '../../../common/group';

export const STUDY_SQL = {
  /** Parameters: id, title, initial status, definition hash, created_at, updated_at. One statement: nodes loading at once write once. */
  upsertLoaded: both(`INSERT INTO studies (id, title, status, definition_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, definition_hash = excluded.definition_hash,
         updated_at = CASE WHEN studies.definition_hash = excluded.definition_hash THEN studies.updated_at ELSE excluded.updated_at END
       RETURNING *`),
  get: both('SELECT * FROM studies WHERE id = ?'),
  list: both('SELECT * FROM studies ORDER BY id'),
  setStatus: both('UPDATE studies SET status = ?, updated_at = ? WHERE id = ?'),
} as const;

export const IDENTITY_SQL = {
  /** Parameters: identityValues(row), then the resume code hash or null. */
  insert: both(`INSERT INTO identities (session_id, study_id, platform, platform_user_id, platform_study_id, platform_session_id, url_params, created_at, resume_code_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  findSessionId: both('SELECT session_id FROM identities WHERE study_id = ? AND platform = ? AND platform_user_id = ?'),
  get: both('SELECT * FROM identities WHERE session_id = ?'),
  countByPlatformUserId: both('SELECT COUNT(*) AS n FROM identities WHERE platform_user_id = ?'),
  listForPlatformUser: both('SELECT * FROM identities WHERE study_id = ? AND platform = ? AND platform_user_id = ? ORDER BY created_at, session_id'),
  countWithoutVisitId: both('SELECT COUNT(*) AS n FROM identities WHERE study_id = ? AND platform_user_id IS NOT NULL AND platform_session_id IS NULL'),
  setResumeCodeHash: both('UPDATE identities SET resume_code_hash = ? WHERE session_id = ?'),
  resumeCodeHash: both('SELECT resume_code_hash FROM identities WHERE session_id = ?'),
} as const;

export const TOKEN_SQL = {
  insert: both('INSERT INTO participant_tokens (token_hash, session_id, created_at) VALUES (?, ?, ?)'),
  findSession: both('SELECT s.* FROM participant_tokens t JOIN sessions s ON s.id = t.session_id WHERE t.token_hash = ?'),
  deleteForSession: both('DELETE FROM participant_tokens WHERE session_id = ?'),
  listAll: both('SELECT token_hash, session_id, created_at FROM participant_tokens ORDER BY created_at, token_hash'),
  count: both('SELECT COUNT(*) AS n FROM participant_tokens'),
} as const;

export const ARTIFACT_SQL = {
  /** Parameters: artifactDraftValues(d). */
  saveDraft: both(`INSERT INTO artifact_drafts (session_id, fields, event_seq, saved_at, version, recorded_version, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET fields = excluded.fields, event_seq = excluded.event_seq, saved_at = excluded.saved_at,
         version = excluded.version, recorded_version = excluded.recorded_version, recorded_at = excluded.recorded_at`),
  getDraft: both('SELECT * FROM artifact_drafts WHERE session_id = ?'),
  /**
   * The next version number, MAX + 1 in the insert itself, returned. SQLite: under BEGIN IMMEDIATE's write lock.
   * PostgreSQL: after lockSession, the session's row lock (as for events), inside one transaction.
   * Parameters: session, fields, event_seq, submitted_at, session.
   */
  insertVersion: both(`INSERT INTO artifacts (session_id, version, fields, event_seq, submitted_at)
         SELECT ?, COALESCE(MAX(version), 0) + 1, ?, ?, ? FROM artifacts WHERE session_id = ?
         RETURNING version`),
  lockSession: postgresOnly('row lock', 'SELECT 1 FROM sessions WHERE id = $1 FOR NO KEY UPDATE'),
  listVersions: both('SELECT * FROM artifacts WHERE session_id = ? ORDER BY version'),
} as const;

export const UPLOAD_SQL = {
  /** Parameters: uploadValues(u). */
  insert: both(`INSERT INTO uploads (id, session_id, field_id, file_name, content_type, bytes, sha256, storage_path, event_seq, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  get: both('SELECT * FROM uploads WHERE id = ?'),
  listForSession: both('SELECT * FROM uploads WHERE session_id = ? ORDER BY created_at, id'),
  count: both('SELECT COUNT(*) AS n FROM uploads'),
} as const;

/** survey_answers' columns, in the order of surveyAnswerValues. */
export const SURVEY_ANSWER_COLUMNS = 'session_id, survey_id, item_id, item_kind, value_num, value_text, event_seq, created_at, answer_order';

export const SURVEY_ANSWER_SQL = {
  /** One row (SQLite runs it per answer inside the caller's transaction; PostgreSQL inserts all rows with one VALUES list). */
  insertOne: both(`INSERT INTO survey_answers (${SURVEY_ANSWER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  /** In the order answered: one survey submit is one event (event_seq), then each answer's place in it (migration 007). */
  listForSession: both('SELECT * FROM survey_answers WHERE session_id = ? ORDER BY event_seq, answer_order, item_id'),
  /** The post-task survey's answers only: a group condition's screening answers (before the lobby) do not count. */
  hasAnswers: both(`SELECT 1 FROM survey_answers WHERE session_id = ? AND survey_id <> '${SCREENING_SURVEY_ID}' LIMIT 1`),
} as const;

export const TELEMETRY_SQL = {
  get: both('SELECT * FROM session_telemetry WHERE session_id = ?'),
  /** Parameters: sessionTelemetryValues(row). */
  put: both(`INSERT INTO session_telemetry (session_id, summary, batches, bytes, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary, batches = excluded.batches, bytes = excluded.bytes, updated_at = excluded.updated_at`),
} as const;

const CHECKPOINT_UPSERT = 'ON CONFLICT (reply_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at';
const PART_UPSERT = 'ON CONFLICT (reply_id, text_from) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at';

export const REPLY_PROGRESS_SQL = {
  /**
   * A batch of checkpoints (ReplyProgressWrite: a reply's whole text so far, or the part streamed since its last
   * checkpoint), skipping rows of sessions withdrawn meanwhile and parts of replies without a checkpoint (withdrawn,
   * or stored meanwhile). A whole text removes the reply's earlier parts. SQLite: a whole text per statement (the
   * session once more as the 7th parameter), with deleteParts and savePart, all in one transaction. PostgreSQL: the
   * whole batch as one JSON parameter of one statement.
   */
  saveMany: variant('json', {
    sqlite: `INSERT INTO reply_progress (reply_id, session_id, text, provider, first_delta_at, updated_at)
       SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
       ${CHECKPOINT_UPSERT}`,
    postgres: `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb)
           AS r(reply_id TEXT, session_id TEXT, text TEXT, provider TEXT, first_delta_at BIGINT, updated_at BIGINT, text_from INTEGER)
       ), whole AS (
         INSERT INTO reply_progress (reply_id, session_id, text, provider, first_delta_at, updated_at)
         SELECT r.reply_id, r.session_id, r.text, r.provider, r.first_delta_at, r.updated_at FROM r
          WHERE r.text_from = 0 AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id)
         ${CHECKPOINT_UPSERT}
       ), stale AS (
         DELETE FROM reply_progress_parts p USING r WHERE r.text_from = 0 AND p.reply_id = r.reply_id
       )
       INSERT INTO reply_progress_parts (reply_id, text_from, text, updated_at)
       SELECT r.reply_id, r.text_from, r.text, r.updated_at FROM r
        WHERE r.text_from > 0 AND EXISTS (SELECT 1 FROM reply_progress h WHERE h.reply_id = r.reply_id)
       ${PART_UPSERT}`,
  }),
  /** A part of a checkpoint: reply, where it starts, its text, updated_at, and the reply once more. A part written again (a retry) takes the new text. */
  savePart: both(`INSERT INTO reply_progress_parts (reply_id, text_from, text, updated_at)
       SELECT ?, CAST(? AS INTEGER), ?, CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM reply_progress WHERE reply_id = ?)
       ${PART_UPSERT}`),
  /** The parts of a reply's earlier checkpoints, removed when its whole text is written again. */
  deleteParts: both('DELETE FROM reply_progress_parts WHERE reply_id = ?'),
  get: both('SELECT * FROM reply_progress WHERE reply_id = ?'),
  /** A checkpoint's later parts, in order (ReplyProgressRepo.get joins them to the row's text). */
  parts: both('SELECT text_from, text, updated_at FROM reply_progress_parts WHERE reply_id = ? ORDER BY text_from'),
  delete: both('DELETE FROM reply_progress WHERE reply_id = ?'),
  /** Checkpoints whose reply is already stored (left behind by a crash between the two writes). */
  deleteStored: both('DELETE FROM reply_progress WHERE reply_id IN (SELECT id FROM messages)'),
  count: both('SELECT COUNT(*) AS n FROM reply_progress'),
} as const;
