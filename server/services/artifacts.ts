import type { ArtifactDraft, ArtifactDraftAck, ArtifactSubmit } from '../../common/events';
import type { ArtifactField } from '../../common/study';
import { ServiceError, type ServiceContext, type SessionContext } from './context';
import type { StoreRepositories } from '../db/store';
import { changeStep, requireActive, requireActiveIn } from './lifecycle';

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

/** Autosave: overwrites the session's draft; each save is also a trajectory event. */
export async function saveDraft(ctx: ServiceContext, sessionId: string, p: ArtifactDraft): Promise<ArtifactDraftAck> {
  const s = await requireActive(ctx, sessionId, ['workspace']);
  await checkFields(ctx.store, s, p.fields, false);
  const now = ctx.now();
  await ctx.store.transaction(async (tx) => {
    await requireActiveIn(ctx, tx, sessionId, ['workspace']);
    const seq = await tx.events.append(sessionId, 'artifact.draft_saved', { fields: p.fields }, now, p.clientTs);
    await tx.artifacts.saveDraft({ sessionId, fields: p.fields, eventSeq: seq, savedAt: now });
  });
  return { savedAt: now };
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
    const version = (await tx.artifacts.listVersions(sessionId)).length + 1;
    const seq = await tx.events.append(sessionId, 'artifact.submitted', { version, fields: p.fields }, now, p.clientTs);
    await tx.artifacts.insertVersion(sessionId, p.fields, seq, now);
    s.session = await tx.sessions.update(sessionId, { submittedAt: now }, now);
    await changeStep(tx, s, 'survey', now, p.clientTs);
  });
}
