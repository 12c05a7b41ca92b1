import type { ArtifactDraft, ArtifactDraftAck, ArtifactSubmit } from '../../common/events';
import type { ArtifactField } from '../../common/study';
import { ServiceError, type ServiceContext, type SessionContext } from './serviceContext';
import type { FieldValues, StoreRepositories } from '../../lib/storage';
import { changeStep, requireActive, requireActiveIn } from './lifecycle';
import { jsonBytes, requireStorageBudget, storagePolicyOf } from './storageBudget';
import { recordPendingDraft } from './pendingDraft';

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
 * Autosave. The latest draft is kept in place (the artifact_drafts row, whose `version` counts saves); the
 * trajectory gets an `artifact.draft_saved` event at most once per `draftEventIntervalMs` per session (the
 * first save always), and the latest draft is recorded before the submission (recordPendingDraft). A save
 * naming a `baseVersion` older than the stored draft came from a stale tab: refused with 'conflict'. A save
 * that would take the session past its storage budget is refused with 'storage_full'.
 */
export async function saveDraft(ctx: ServiceContext, sessionId: string, p: ArtifactDraft): Promise<ArtifactDraftAck> {
  const s = await requireActive(ctx, sessionId, ['workspace']);
  await checkFields(ctx.store, s, p.fields, false);
  const now = ctx.now();
  const { draftEventIntervalMs } = storagePolicyOf(ctx);
  return ctx.store.transaction(async (tx) => {
    await requireActiveIn(ctx, tx, sessionId, ['workspace']);
    const stored = await tx.artifacts.getDraft(sessionId);
    const storedVersion = stored?.version ?? 0;
    // Already stored (a resend, or two tabs with the same text): nothing to write, whatever the base version.
    if (stored && sameValues(stored.fields, p.fields)) return { savedAt: stored.savedAt, version: storedVersion };
    if (p.baseVersion !== undefined && p.baseVersion !== storedVersion)
      throw new ServiceError(
        'conflict',
        `the draft was saved from another tab or window (now version ${storedVersion}, this save was based on version ${p.baseVersion}); nothing was saved`,
        'baseVersion',
      );
    const version = storedVersion + 1;
    const record = !stored || now - stored.recordedAt >= draftEventIntervalMs;
    const event = { fields: p.fields, version };
    const growth = jsonBytes(p.fields) - (stored ? jsonBytes(stored.fields) : 0) + (record ? jsonBytes(event) : 0);
    await requireStorageBudget(ctx, tx, sessionId, growth);
    if (record) {
      const seq = await tx.events.append(sessionId, 'artifact.draft_saved', event, now, p.clientTs);
      await tx.artifacts.saveDraft({ sessionId, fields: p.fields, eventSeq: seq, savedAt: now, version, recordedVersion: version, recordedAt: now });
    } else {
      await tx.artifacts.saveDraft({ ...stored!, fields: p.fields, savedAt: now, version });
    }
    return { savedAt: now, version };
  });
}

function sameValues(a: FieldValues, b: FieldValues): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a[k] === b[k]);
}

/** Throws the ServiceError a submission would fail with; returns the loaded session when it would succeed. */
export async function checkSubmission(ctx: ServiceContext, sessionId: string, p: ArtifactSubmit): Promise<SessionContext> {
  const s = await requireActive(ctx, sessionId, ['workspace']);
  await checkFields(ctx.store, s, p.fields, true);
  return s;
}

/** Stores a submitted version (1, 2, …) and moves the session to the survey. */
export async function submitArtifact(ctx: ServiceContext, sessionId: string, p: ArtifactSubmit): Promise<void> {
  await checkSubmission(ctx, sessionId, p);
  const now = ctx.now();
  await ctx.store.transaction(async (tx) => {
    // Re-checked on the locked row: a second submit (another socket) finds the session in the survey.
    const s = await requireActiveIn(ctx, tx, sessionId, ['workspace']);
    await recordPendingDraft(tx, sessionId, now);
    const version = (await tx.artifacts.listVersions(sessionId)).length + 1;
    const seq = await tx.events.append(sessionId, 'artifact.submitted', { version, fields: p.fields }, now, p.clientTs);
    await tx.artifacts.insertVersion(sessionId, p.fields, seq, now);
    s.session = await tx.sessions.update(sessionId, { submittedAt: now }, now);
    await changeStep(tx, s, 'survey', now, p.clientTs);
  });
}
