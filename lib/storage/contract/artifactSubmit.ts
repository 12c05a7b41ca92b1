/**
 * The store contract of a submission (Store.submitArtifact): the checks and writes of the transaction it replaces
 * (BEGIN, session lock and check, draft read, the pending draft's event and mark, versions read, the state change
 * with its events, the version's row, COMMIT: up to nine round trips on PostgreSQL) as one call, so PostgreSQL
 * answers it in one round trip (tandem_submit_artifact, migration 038) and SQLite in one synchronous transaction.
 *   - the session row is locked first (PostgreSQL: FOR NO KEY UPDATE, as tandem_append_event), so every check is
 *     made on the row as it is when the write happens;
 *   - the session must be active ('ended'), not past its deadline (consentedAt + timeLimitMs, at the instructions
 *     or the workspace: 'overdue') and at the workspace ('wrong_step'); a refusal writes nothing and answers the row;
 *   - a draft whose last saves were coalesced away (its version newer than the one its last event recorded) gets
 *     its `artifact.draft_saved` event first ({"fields", "version", "savedAt"}), and the draft row that mark, so the
 *     trajectory ends with the final draft before the submission;
 *   - then `artifact.submitted` ({"version", "fields"}, the next version: 1, 2, …) and the events of `after`, with
 *     the patch `{ step: 'survey', submittedAt: now }`, as one state change;
 *   - the version's row (artifacts) points at the `artifact.submitted` event.
 * Payloads are stored as the same text on both engines (JSON.stringify of the same objects).
 */
import type { SessionChangeEvent, SessionRow } from './sessions';
import type { FieldValues } from './submissions';

export interface ArtifactSubmission {
  sessionId: string;
  fields: FieldValues;
  clientTs: number | null;
  now: number;
  timeLimitMs: number;
  /** Recorded after `artifact.submitted`, in the same change (the step's own event). */
  after: readonly SessionChangeEvent[];
}

export type ArtifactSubmitRefusal = 'ended' | 'overdue' | 'wrong_step';

export type ArtifactSubmitResult =
  /** Stored as `version`; `session` is the row after the change. */
  | { outcome: 'submitted'; version: number; session: SessionRow }
  | { outcome: 'not_found' }
  | { outcome: 'refused'; reason: ArtifactSubmitRefusal; session: SessionRow };

/** The step a submission is made from, and the one it moves the session to. */
export const SUBMISSION_STEPS = { from: 'workspace', to: 'survey' } as const;
