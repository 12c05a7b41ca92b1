/**
 * Store.submitArtifact on SQLite: the checks and writes of the contract (../contract/artifactSubmit.ts) run
 * synchronously in one BEGIN IMMEDIATE transaction, which holds the database's write lock from the first read.
 */
import { SUBMISSION_STEPS, type ArtifactSubmission, type ArtifactSubmitResult } from '../contract/artifactSubmit';
import type { ArtifactsRepo, EventsRepo, SessionsRepo } from '../contract/store';
import type { Sync } from './sync';
import { sessionRefusal } from './sessionRefusal';

interface Repositories {
  sessions: Sync<SessionsRepo>;
  artifacts: Sync<ArtifactsRepo>;
  events: Sync<EventsRepo>;
}

/** Call inside a transaction that holds the write lock (see createSqliteStore). */
export function submitArtifactSync(repos: Repositories, w: ArtifactSubmission): ArtifactSubmitResult {
  const session = repos.sessions.get(w.sessionId);
  if (!session) return { outcome: 'not_found' };
  // The order of the PostgreSQL function's checks (migration 038).
  const refusal = sessionRefusal(session, w.now, w.timeLimitMs, SUBMISSION_STEPS.from);
  if (refusal) return { outcome: 'refused', reason: refusal, session };

  const draft = repos.artifacts.getDraft(w.sessionId);
  if (draft && draft.version !== draft.recordedVersion) {
    const seq = repos.events.append(w.sessionId, 'artifact.draft_saved', { fields: draft.fields, version: draft.version, savedAt: draft.savedAt }, w.now, null);
    repos.artifacts.saveDraft({ ...draft, eventSeq: seq, recordedVersion: draft.version, recordedAt: w.now });
  }
  const version = (repos.artifacts.listVersions(w.sessionId).at(-1)?.version ?? 0) + 1;
  const submitted = { type: 'artifact.submitted', payload: { version, fields: w.fields }, clientTs: w.clientTs };
  const changed = repos.sessions.changeFrom(w.sessionId, { step: SUBMISSION_STEPS.from, status: 'active' }, [submitted, ...w.after], { submittedAt: w.now, step: SUBMISSION_STEPS.to }, w.now);
  // Checked above under the write lock: the change cannot miss.
  if (!changed?.changed) throw new Error(`session ${w.sessionId} changed during its submission`);
  repos.artifacts.insertVersion(w.sessionId, w.fields, changed.seqs[0]!, w.now);
  return { outcome: 'submitted', version, session: changed.session };
}
