import { cachedStatement, type SqliteDatabase } from '../database';
import type { ArtifactDraftRow, ArtifactsRepo, ArtifactVersionRow, FieldValues } from '../../contract/store';
import { artifactDraftValues, toArtifactDraft, toArtifactVersion, type ArtifactDraftRaw, type ArtifactVersionRaw } from '../../rows/artifacts';
import type { Sync } from '../sync';

/** Artifact drafts (one per session, overwritten on autosave) and submitted versions (1, 2, …). */
export class ArtifactsRepository implements Sync<ArtifactsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  saveDraft(d: ArtifactDraftRow): void {
    cachedStatement(
      this.db,
      `INSERT INTO artifact_drafts (session_id, fields, event_seq, saved_at, version, recorded_version, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET fields = excluded.fields, event_seq = excluded.event_seq, saved_at = excluded.saved_at,
         version = excluded.version, recorded_version = excluded.recorded_version, recorded_at = excluded.recorded_at`,
    ).run(...artifactDraftValues(d));
  }

  getDraft(sessionId: string): ArtifactDraftRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM artifact_drafts WHERE session_id = ?').get(sessionId) as ArtifactDraftRaw | undefined;
    return r && toArtifactDraft(r);
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
    const rows = cachedStatement(this.db, 'SELECT * FROM artifacts WHERE session_id = ? ORDER BY version').all(sessionId) as ArtifactVersionRaw[];
    return rows.map(toArtifactVersion);
  }
}
