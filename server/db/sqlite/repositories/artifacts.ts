import { cachedStatement, type SqliteDatabase } from '../../database';
import type { ArtifactDraftRow, ArtifactsRepo, ArtifactVersionRow, FieldValues } from '../../storeInterface';
import type { Sync } from '../sync';

interface DraftRaw {
  session_id: string;
  fields: string;
  event_seq: number;
  saved_at: number;
  version: number;
  recorded_version: number;
  recorded_at: number;
}
const draftRow = (r: DraftRaw): ArtifactDraftRow => ({
  sessionId: r.session_id,
  fields: JSON.parse(r.fields) as FieldValues,
  eventSeq: r.event_seq,
  savedAt: r.saved_at,
  version: r.version,
  recordedVersion: r.recorded_version,
  recordedAt: r.recorded_at,
});

/** Artifact drafts (one per session, overwritten on autosave) and submitted versions (1, 2, …). */
export class ArtifactsRepository implements Sync<ArtifactsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  saveDraft(d: ArtifactDraftRow): void {
    cachedStatement(
      this.db,
      `INSERT INTO artifact_drafts (session_id, fields, event_seq, saved_at, version, recorded_version, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET fields = excluded.fields, event_seq = excluded.event_seq, saved_at = excluded.saved_at,
         version = excluded.version, recorded_version = excluded.recorded_version, recorded_at = excluded.recorded_at`,
    ).run(d.sessionId, JSON.stringify(d.fields), d.eventSeq, d.savedAt, d.version, d.recordedVersion, d.recordedAt);
  }

  getDraft(sessionId: string): ArtifactDraftRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM artifact_drafts WHERE session_id = ?').get(sessionId) as DraftRaw | undefined;
    return r && draftRow(r);
  }

  /** Stores the next version number for the session and returns it. */
  insertVersion(sessionId: string, fields: FieldValues, eventSeq: number, submittedAt: number): number {
    const r = cachedStatement(this.db, 'SELECT COALESCE(MAX(version), 0) AS v FROM artifacts WHERE session_id = ?').get(sessionId) as { v: number };
    const version = r.v + 1;
    cachedStatement(this.db, 'INSERT INTO artifacts (session_id, version, fields, event_seq, submitted_at) VALUES (?, ?, ?, ?, ?)')
      .run(sessionId, version, JSON.stringify(fields), eventSeq, submittedAt);
    return version;
  }

  listVersions(sessionId: string): ArtifactVersionRow[] {
    const rows = cachedStatement(this.db, 'SELECT * FROM artifacts WHERE session_id = ? ORDER BY version').all(sessionId) as {
      session_id: string;
      version: number;
      fields: string;
      event_seq: number;
      submitted_at: number;
    }[];
    return rows.map((r) => ({
      sessionId: r.session_id,
      version: r.version,
      fields: JSON.parse(r.fields) as FieldValues,
      eventSeq: r.event_seq,
      submittedAt: r.submitted_at,
    }));
  }
}
