import type { ArtifactDraftRow, ArtifactsRepo, ArtifactVersionRow, FieldValues } from '../../contract/store';
import { artifactDraftValues, toArtifactDraft, toArtifactVersion, type ArtifactDraftRaw, type ArtifactVersionRaw } from '../../rows/artifacts';
import { ARTIFACT_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** Artifact drafts (one per session, overwritten on autosave) and submitted versions (1, 2, …). */
export class ArtifactsRepository extends SqliteRepository implements Sync<ArtifactsRepo> {
  saveDraft(d: ArtifactDraftRow): void {
    this.q.run(ARTIFACT_SQL.saveDraft, ...artifactDraftValues(d));
  }

  getDraft(sessionId: string): ArtifactDraftRow | undefined {
    const r = this.q.one<ArtifactDraftRaw>(ARTIFACT_SQL.getDraft, sessionId);
    return r && toArtifactDraft(r);
  }

  /** Stores the next version number for the session and returns it (MAX + 1 under BEGIN IMMEDIATE's write lock). */
  insertVersion(sessionId: string, fields: FieldValues, eventSeq: number, submittedAt: number): number {
    return this.q.one<{ version: number }>(ARTIFACT_SQL.insertVersion, sessionId, JSON.stringify(fields), eventSeq, submittedAt, sessionId)!.version;
  }

  listVersions(sessionId: string): ArtifactVersionRow[] {
    return this.q.rows<ArtifactVersionRaw>(ARTIFACT_SQL.listVersions, sessionId).map(toArtifactVersion);
  }
}
