import type { ArtifactDraftRow, ArtifactsRepo, ArtifactVersionRow, FieldValues } from '../../contract/store';
import { artifactDraftValues, toArtifactDraft, toArtifactVersion, type ArtifactDraftRaw, type ArtifactVersionRaw } from '../../rows/artifacts';
import type { Runner } from '../connection';

/** Artifact drafts (one per session, overwritten on autosave) and submitted versions (1, 2, …). */
export class PgArtifacts implements ArtifactsRepo {
  constructor(private readonly db: Runner) {}

  async saveDraft(d: ArtifactDraftRow): Promise<void> {
    await this.db.run(
      `INSERT INTO artifact_drafts (session_id, fields, event_seq, saved_at, version, recorded_version, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (session_id) DO UPDATE SET fields = excluded.fields, event_seq = excluded.event_seq, saved_at = excluded.saved_at,
         version = excluded.version, recorded_version = excluded.recorded_version, recorded_at = excluded.recorded_at`,
      artifactDraftValues(d),
    );
  }

  async getDraft(sessionId: string): Promise<ArtifactDraftRow | undefined> {
    const r = await this.db.one<ArtifactDraftRaw>('SELECT * FROM artifact_drafts WHERE session_id = $1', [sessionId]);
    return r && toArtifactDraft(r);
  }

  /** The session row lock (as for events) makes MAX + 1 safe against a concurrent submit on another connection. */
  insertVersion(sessionId: string, fields: FieldValues, eventSeq: number, submittedAt: number): Promise<number> {
    return this.db.atomic(async (tx) => {
      await tx.run('SELECT 1 FROM sessions WHERE id = $1 FOR NO KEY UPDATE', [sessionId]);
      const r = await tx.one<{ version: number }>(
        `INSERT INTO artifacts (session_id, version, fields, event_seq, submitted_at)
         SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4 FROM artifacts WHERE session_id = $1
         RETURNING version`,
        [sessionId, JSON.stringify(fields), eventSeq, submittedAt],
      );
      return r!.version;
    });
  }

  async listVersions(sessionId: string): Promise<ArtifactVersionRow[]> {
    const rows = await this.db.rows<ArtifactVersionRaw>('SELECT * FROM artifacts WHERE session_id = $1 ORDER BY version', [sessionId]);
    return rows.map(toArtifactVersion);
  }
}
