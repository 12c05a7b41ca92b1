import type { ArtifactDraftRow, ArtifactsRepo, ArtifactVersionRow, FieldValues } from '../../contract/store';
import { artifactDraftValues, toArtifactDraft, toArtifactVersion, type ArtifactDraftRaw, type ArtifactVersionRaw } from '../../rows/artifacts';
import { ARTIFACT_SQL } from '../../sql/participants';
import type { Runner } from '../connection';

/** Artifact drafts (one per session, overwritten on autosave) and submitted versions (1, 2, …). */
export class PgArtifacts implements ArtifactsRepo {
  constructor(private readonly db: Runner) {}

  async saveDraft(d: ArtifactDraftRow): Promise<void> {
    await this.db.run(ARTIFACT_SQL.saveDraft.postgres, artifactDraftValues(d));
  }

  async getDraft(sessionId: string): Promise<ArtifactDraftRow | undefined> {
    const r = await this.db.one<ArtifactDraftRaw>(ARTIFACT_SQL.getDraft.postgres, [sessionId]);
    return r && toArtifactDraft(r);
  }

  /** The session row lock (as for events) makes MAX + 1 safe against a concurrent submit on another connection. */
  insertVersion(sessionId: string, fields: FieldValues, eventSeq: number, submittedAt: number): Promise<number> {
    return this.db.atomic(async (tx) => {
      await tx.run(ARTIFACT_SQL.lockSession.postgres, [sessionId]);
      const r = await tx.one<{ version: number }>(ARTIFACT_SQL.insertVersion.postgres, [sessionId, JSON.stringify(fields), eventSeq, submittedAt, sessionId]);
      return r!.version;
    });
  }

  async listVersions(sessionId: string): Promise<ArtifactVersionRow[]> {
    return (await this.db.rows<ArtifactVersionRaw>(ARTIFACT_SQL.listVersions.postgres, [sessionId])).map(toArtifactVersion);
  }
}
