import type { ArtifactDraft, ArtifactDraftAck, ArtifactSubmit } from '../../common/events';
import type { ArtifactField } from '../../common/study';
import { ServiceError, sessionContextOf, type ServiceContext, type SessionContext } from './serviceContext';
import { SUBMISSION_STEPS, type StoreRepositories } from '../../lib/storage';
import { refuseInactive, requireActive, stepChanged, workingAt } from './lifecycle';
import { storageFull, storagePolicyOf } from './storageBudget';
import { sessionDefinitions } from './knownSessions';

const DEFAULT_MAX_LENGTH = 20_000;

/**
 * Checks artifact values against the task's fields: only known fields, text within max_length,
 * image fields naming an upload of this session for that field; with `complete`, required fields filled.
 */
async function checkFields(db: StoreRepositories, s: SessionContext, values: Record<string, string>, complete: boolean): Promise<void> {
  const fields = new Map<string, ArtifactField>(s.task.fields.map((f) => [f.id, f]));
  for (const [id, value] of Object.entries(values)) {
    const field = fields.get(id);
    if (!field) throw new ServiceError('invalid_input', `unknown artifact field "${id}"`, `fields.${id}`);
    if (field.kind === 'image') {
      if (value === '') continue;
      const upload = await db.uploads.get(value);
      if (!upload || upload.sessionId !== s.session.id || upload.fieldId !== id)
        throw new ServiceError('invalid_input', `"${field.label}" must name an image uploaded for this field`, `fields.${id}`);
    } else {
      const max = field.max_length ?? DEFAULT_MAX_LENGTH;
      if (value.length > max) throw new ServiceError('too_large', `"${field.label}" is too long: ${value.length} characters, at most ${max}`, `fields.${id}`);
    }
  }
  if (complete) {
    for (const field of s.task.fields) {
      if (field.required && (values[field.id] ?? '').trim() === '')
        throw new ServiceError('invalid_input', `"${field.label}" is required`, `fields.${field.id}`);
    }
  }
}

/**
 * Autosave, in one store call (Store.saveDraft: on PostgreSQL one round trip). The latest draft is kept in place
 * (the artifact_drafts row, whose `version` counts saves); the trajectory gets an `artifact.draft_saved` event at
 * most once per `draftEventIntervalMs` per session (the first save always), and the latest draft is recorded before
 * the submission (recordPendingDraft). A save naming a `baseVersion` older than the stored draft came from a stale
 * tab: refused with 'conflict'. A save that would take the session past its storage budget is refused with
 * 'storage_full'. The fields are checked against the task first (its definition from knownSessions.ts: no read).
 */
export async function saveDraft(ctx: ServiceContext, sessionId: string, p: ArtifactDraft): Promise<ArtifactDraftAck> {
  const s = await sessionDefinitions(ctx, sessionId);
  await checkFields(ctx.store, s, p.fields, false);
  const { draftEventIntervalMs, sessionBudgetBytes } = storagePolicyOf(ctx);
  const r = await ctx.store.saveDraft({
    sessionId,
    fields: p.fields,
    baseVersion: p.baseVersion ?? null,
    now: ctx.now(),
    clientTs: p.clientTs,
    step: 'workspace',
    timeLimitMs: s.study.time_limit_minutes * 60_000,
    budgetBytes: sessionBudgetBytes,
    eventIntervalMs: draftEventIntervalMs,
  });
  if (r.outcome === 'not_found') throw new ServiceError('not_found', 'session not found');
  if (r.outcome !== 'refused') return { savedAt: r.savedAt, version: r.version };
  switch (r.reason) {
    case 'overdue':
    case 'ended':
    case 'wrong_step':
      return refuseInactive(ctx, sessionContextOf(ctx, r.session), r.reason, 'workspace', 'draft');
    case 'conflict':
      throw new ServiceError(
        'conflict',
        `the draft was saved from another tab or window (now version ${r.storedVersion}, this save was based on version ${p.baseVersion}); nothing was saved`,
        'baseVersion',
      );
    case 'storage_full':
      throw storageFull(ctx, sessionId, r.storedBytes, r.change);
  }
}

/** Throws the ServiceError a submission would fail with, as far as it is known before its store call; returns the session. */
export async function checkSubmission(ctx: ServiceContext, sessionId: string, p: ArtifactSubmit): Promise<SessionContext> {
  // Without a read while the deadline is ahead (workingAt): the submission's store call checks the step and status on
  // the locked row. Fields it refuses read the row first, so that the step's refusal still comes before theirs.
  const known = await workingAt(ctx, sessionId, 'workspace');
  const s = known ?? (await requireActive(ctx, sessionId, ['workspace']));
  try {
    await checkFields(ctx.store, s, p.fields, true);
  } catch (err) {
    if (known) await requireActive(ctx, sessionId, ['workspace']);
    throw err;
  }
  return s;
}

/**
 * Stores a submitted version (1, 2, …) and moves the session to the survey, in one store call (Store.submitArtifact:
 * on PostgreSQL one round trip): the draft's last coalesced save recorded first (as recordPendingDraft does), then the
 * submission and the step change. `checked` is checkSubmission's answer; the store checks the session again on its
 * locked row, so a second submit (another socket) finds the session in the survey.
 */
export async function submitArtifact(ctx: ServiceContext, checked: SessionContext, p: ArtifactSubmit): Promise<void> {
  const r = await ctx.store.submitArtifact({
    sessionId: checked.session.id,
    fields: p.fields,
    clientTs: p.clientTs,
    now: ctx.now(),
    timeLimitMs: checked.study.time_limit_minutes * 60_000,
    after: [stepChanged(SUBMISSION_STEPS.from, SUBMISSION_STEPS.to, p.clientTs)],
  });
  if (r.outcome === 'not_found') throw new ServiceError('not_found', 'session not found');
  if (r.outcome === 'refused') await refuseInactive(ctx, sessionContextOf(ctx, r.session), r.reason, SUBMISSION_STEPS.from, 'submission');
}
