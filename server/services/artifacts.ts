import type { ArtifactDraft, ArtifactDraftAck, ArtifactSubmit } from '../../common/events';
import type { ArtifactField } from '../../common/study';
import { ServiceError, type ServiceContext, type SessionContext } from './context';
import { changeStep, requireActive } from './lifecycle';

const DEFAULT_MAX_LENGTH = 20_000;

/**
 * Checks artifact values against the task's fields: only known fields, text within max_length,
 * image fields naming an upload of this session for that field; with `complete`, required fields filled.
 */
function checkFields(ctx: ServiceContext, s: SessionContext, values: Record<string, string>, complete: boolean): void {
  const fields = new Map<string, ArtifactField>(s.task.fields.map((f) => [f.id, f]));
  for (const [id, value] of Object.entries(values)) {
    const field = fields.get(id);
    if (!field) throw new ServiceError('invalid_input', `unknown artifact field "${id}"`, `fields.${id}`);
    if (field.kind === 'image') {
      if (value === '') continue;
      const upload = ctx.store.uploads.get(value);
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
export function saveDraft(ctx: ServiceContext, sessionId: string, p: ArtifactDraft): ArtifactDraftAck {
  const s = requireActive(ctx, sessionId, ['workspace']);
  checkFields(ctx, s, p.fields, false);
  const now = ctx.now();
  ctx.store.transaction(() => {
    const seq = ctx.store.events.append(sessionId, 'artifact.draft_saved', { fields: p.fields }, now, p.clientTs);
    ctx.store.artifacts.saveDraft({ sessionId, fields: p.fields, eventSeq: seq, savedAt: now });
  });
  return { savedAt: now };
}

/** Throws the ServiceError a submission would fail with; returns the loaded session when it would succeed. */
export function checkSubmission(ctx: ServiceContext, sessionId: string, p: ArtifactSubmit): SessionContext {
  const s = requireActive(ctx, sessionId, ['workspace']);
  checkFields(ctx, s, p.fields, true);
  return s;
}

/** Stores a submitted version (1, 2, …) and moves the session to the survey. */
export function submitArtifact(ctx: ServiceContext, sessionId: string, p: ArtifactSubmit): void {
  const s = checkSubmission(ctx, sessionId, p);
  const now = ctx.now();
  ctx.store.transaction(() => {
    const version = ctx.store.artifacts.listVersions(sessionId).length + 1;
    const seq = ctx.store.events.append(sessionId, 'artifact.submitted', { version, fields: p.fields }, now, p.clientTs);
    ctx.store.artifacts.insertVersion(sessionId, p.fields, seq, now);
    s.session = ctx.store.sessions.update(sessionId, { submittedAt: now }, now);
    changeStep(ctx, s, 'survey', now, p.clientTs);
  });
}
