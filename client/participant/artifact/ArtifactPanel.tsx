import { useEffect, useRef, useState } from 'react';
import type { ArtifactValues, SessionState } from '../../../common/session';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDebouncedCallback } from '../../ui/useDebouncedCallback';
import { actionMessageOf } from '../errorMessages';
import type { SessionActions } from '../session/useParticipantSession';
import { ImageField } from './ImageField';
import { TextField } from './TextField';
import { ErrorAlert } from '../../ui/formParts';

const AUTOSAVE_DELAY_MS = 800;
const RESAVE_AFTER_ERROR_MS = 3000;

type SaveStatus = { kind: 'idle' } | { kind: 'unsaved' } | { kind: 'saving' } | { kind: 'saved'; at: number } | { kind: 'error'; message: string };

function initialValues(state: SessionState): ArtifactValues {
  return { ...(state.artifactVersions.at(-1)?.fields ?? {}), ...(state.draft?.fields ?? {}) };
}

/** The artifact form: fields by kind, debounced autosave with a visible status, submit with a confirm. */
export function ArtifactPanel({ state, actions, token }: { state: SessionState; actions: SessionActions; token: string }) {
  const [values, setValues] = useState<ArtifactValues>(() => initialValues(state));
  const [status, setStatus] = useState<SaveStatus>(() => (state.draft ? { kind: 'saved', at: state.draft.savedAt } : { kind: 'idle' }));
  const [confirming, setConfirming] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // After a Submit with empty required fields, each empty field is marked until it is filled.
  const [checked, setChecked] = useState(false);
  const latest = useRef(values);
  latest.current = values;

  const save = async (fields: ArtifactValues) => {
    setStatus({ kind: 'saving' });
    try {
      const ack = await actions.saveDraft(fields);
      // A newer edit may already be queued; only report "saved" for the latest values.
      if (latest.current === fields) setStatus({ kind: 'saved', at: ack.savedAt });
    } catch (error) {
      setStatus({ kind: 'error', message: actionMessageOf(error) });
      setTimeout(() => {
        if (latest.current === fields) autosave.schedule(fields);
      }, RESAVE_AFTER_ERROR_MS);
    }
  };
  const autosave = useDebouncedCallback((fields: ArtifactValues) => void save(fields), AUTOSAVE_DELAY_MS);

  // Leaving the page (reload, close) sends a pending draft at once instead of after the debounce.
  const flushRef = useRef(autosave.flush);
  flushRef.current = autosave.flush;
  useEffect(() => {
    const onHide = () => flushRef.current();
    window.addEventListener('pagehide', onHide);
    return () => window.removeEventListener('pagehide', onHide);
  }, []);

  const change = (fieldId: string, value: string) => {
    const next = { ...latest.current, [fieldId]: value };
    latest.current = next;
    setValues(next);
    setStatus({ kind: 'unsaved' });
    autosave.schedule(next);
  };

  const missing = state.task.fields.filter((f) => f.required && !(values[f.id] ?? '').trim());

  const missingIds = new Set(checked ? missing.map((f) => f.id) : []);

  const requestSubmit = () => {
    setProblem(null);
    if (missing.length > 0) {
      setChecked(true);
      document.getElementById(fieldDomId(missing[0]!.id))?.focus();
      return;
    }
    setConfirming(true);
  };

  const submit = async () => {
    setConfirming(false);
    setSubmitting(true);
    autosave.cancel(); // the submission carries the same values
    try {
      await actions.submitArtifact(latest.current);
    } catch (error) {
      setProblem(`Your work was not submitted: ${actionMessageOf(error)}`);
      setSubmitting(false);
    }
  };

  return (
    <section className="card" aria-labelledby="artifact-heading">
      <h2 id="artifact-heading">Your answer</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          requestSubmit();
        }}
        noValidate
      >
        {state.task.fields.map((field) =>
          field.kind === 'image' ? (
            <ImageField
              key={field.id}
              field={field}
              value={values[field.id] ?? ''}
              uploads={state.uploads}
              token={token}
              limits={state.limits}
              invalid={missingIds.has(field.id)}
              inputId={fieldDomId(field.id)}
              onChange={(uploadId) => change(field.id, uploadId)}
            />
          ) : (
            <TextField
              key={field.id}
              field={field}
              value={values[field.id] ?? ''}
              invalid={missingIds.has(field.id)}
              inputId={fieldDomId(field.id)}
              onChange={(value) => change(field.id, value)}
              onPaste={(chars) => actions.telemetry({ kind: 'paste', chars, target: field.id })}
            />
          ),
        )}
        <p className={status.kind === 'error' ? 'save-status error' : 'save-status'} role="status" data-save={status.kind}>
          {statusText(status)}
        </p>
        <ErrorAlert
          message={missingIds.size > 0 ? `Please fill in: ${missing.map((f) => f.label).join(', ')}.` : null}
        />
        <ErrorAlert message={problem} />
        <div className="actions">
          <button type="submit" disabled={submitting}>
            {submitting ? 'Submitting…' : 'Submit my answer'}
          </button>
          {state.artifactVersions.length > 0 && (
            <span className="hint">Submitted versions: {state.artifactVersions.length}</span>
          )}
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title="Submit your answer?"
        confirmLabel="Yes, submit"
        onConfirm={() => void submit()}
        onCancel={() => setConfirming(false)}
      >
        <p>After submitting you will go on to a short survey and cannot change your answer or chat any more.</p>
      </ConfirmDialog>
    </section>
  );
}

function statusText(status: SaveStatus): string {
  switch (status.kind) {
    case 'idle':
      return 'Your work is saved automatically.';
    case 'unsaved':
      return 'Unsaved changes…';
    case 'saving':
      return 'Saving…';
    case 'saved':
      return `All changes saved (${new Date(status.at).toLocaleTimeString()}).`;
    case 'error':
      return `Not saved yet: ${status.message} Trying again…`;
  }
}

/** The DOM id of a field's control, so the first missing field can take focus. */
export function fieldDomId(fieldId: string): string {
  return `artifact-field-${fieldId}`;
}
