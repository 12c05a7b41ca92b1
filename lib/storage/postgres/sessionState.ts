/**
 * Store.readSessionState on PostgreSQL: one statement returning one JSON text (session and messages as
 * row_to_json of their rows, mapped by their repositories' mappers; the other rows built in camelCase here).
 */
import { SCREENING_SURVEY_ID } from '../../../common/group';
import type { SessionStateRows } from '../contract/sessionState';
import type { Runner } from './connection';
import { toMessageRow, type MessageRaw } from '../rows/messages';
import { toSessionRow, type SessionRaw } from '../rows/sessions';

const READ = `SELECT json_build_object(
    'session', row_to_json(s),
    'draft', (SELECT json_build_object('sessionId', d.session_id, 'fields', d.fields::json, 'eventSeq', d.event_seq, 'savedAt', d.saved_at,
                'version', d.version, 'recordedVersion', d.recorded_version, 'recordedAt', d.recorded_at)
                FROM artifact_drafts d WHERE d.session_id = s.id),
    'messages', COALESCE((SELECT json_agg(m ORDER BY m.event_seq, m.created_at, m.id) FROM messages m WHERE m.session_id = s.id), '[]'),
    'uploads', COALESCE((SELECT json_agg(json_build_object('id', u.id, 'sessionId', u.session_id, 'fieldId', u.field_id, 'fileName', u.file_name,
                'contentType', u.content_type, 'bytes', u.bytes, 'sha256', u.sha256, 'storagePath', u.storage_path, 'eventSeq', u.event_seq,
                'createdAt', u.created_at) ORDER BY u.created_at, u.id) FROM uploads u WHERE u.session_id = s.id), '[]'),
    'versions', COALESCE((SELECT json_agg(json_build_object('sessionId', a.session_id, 'version', a.version, 'fields', a.fields::json,
                'eventSeq', a.event_seq, 'submittedAt', a.submitted_at) ORDER BY a.version) FROM artifacts a WHERE a.session_id = s.id), '[]'),
    'surveySubmitted', EXISTS (SELECT 1 FROM survey_answers q WHERE q.session_id = s.id AND q.survey_id <> '${SCREENING_SURVEY_ID}')
  )::text AS state
  FROM sessions s WHERE s.id = $1`;

type Answer = Omit<SessionStateRows, 'session' | 'messages' | 'draft'> & { session: SessionRaw; messages: MessageRaw[]; draft: SessionStateRows['draft'] | null };

export async function readSessionState(db: Runner, sessionId: string): Promise<SessionStateRows | undefined> {
  const row = await db.one<{ state: string }>(READ, [sessionId]);
  if (!row) return undefined;
  const a = JSON.parse(row.state) as Answer;
  return { ...a, session: toSessionRow(a.session), messages: a.messages.map(toMessageRow), draft: a.draft ?? undefined };
}
