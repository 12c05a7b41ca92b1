/**
 * The `artifact_drafts` and `artifacts` rows as both engines return them (`fields` is JSON TEXT on each),
 * their mappings, and the values of a draft upsert.
 */
import type { ArtifactDraftRow, ArtifactVersionRow, FieldValues } from '../contract/store';

export interface ArtifactDraftRaw {
  session_id: string;
  fields: string;
  event_seq: number;
  saved_at: number;
  version: number;
  recorded_version: number;
  recorded_at: number;
}

export const toArtifactDraft = (r: ArtifactDraftRaw): ArtifactDraftRow => ({
  sessionId: r.session_id,
  fields: JSON.parse(r.fields) as FieldValues,
  eventSeq: r.event_seq,
  savedAt: r.saved_at,
  version: r.version,
  recordedVersion: r.recorded_version,
  recordedAt: r.recorded_at,
});

/** Upsert values in the column order session_id, fields, event_seq, saved_at, version, recorded_version, recorded_at. */
export const artifactDraftValues = (d: ArtifactDraftRow) =>
  [d.sessionId, JSON.stringify(d.fields), d.eventSeq, d.savedAt, d.version, d.recordedVersion, d.recordedAt] as const;

export interface ArtifactVersionRaw {
  session_id: string;
  version: number;
  fields: string;
  event_seq: number;
  submitted_at: number;
}

export const toArtifactVersion = (r: ArtifactVersionRaw): ArtifactVersionRow => ({
  sessionId: r.session_id,
  version: r.version,
  fields: JSON.parse(r.fields) as FieldValues,
  eventSeq: r.event_seq,
  submittedAt: r.submitted_at,
});
