import type { StoreRepositories } from '../../lib/storage';

/**
 * Records the latest draft as an `artifact.draft_saved` event when its last saves were coalesced away (inside
 * the caller's transaction, before the submission or the time-out), so the trajectory always ends with the
 * final draft. The event's `savedAt` says when that draft was saved.
 */
export async function recordPendingDraft(tx: StoreRepositories, sessionId: string, now: number): Promise<void> {
  const draft = await tx.artifacts.getDraft(sessionId);
  if (!draft || draft.version === draft.recordedVersion) return;
  const seq = await tx.events.append(sessionId, 'artifact.draft_saved', { fields: draft.fields, version: draft.version, savedAt: draft.savedAt }, now, null);
  await tx.artifacts.saveDraft({ ...draft, eventSeq: seq, recordedVersion: draft.version, recordedAt: now });
}
