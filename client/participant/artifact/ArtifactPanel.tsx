import { useState } from 'react';
import type { SessionState } from '../../../common/session';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { actionMessageOf } from '../errorMessages';
import { useDraftAutosave, type SaveStatus } from './useDraftAutosave';
import type { SessionActions } from '../session/useParticipantSession';
import { ImageField } from './ImageField';
import { TextField } from './TextField';
import { ErrorAlert } from '../../ui/formParts';

/** The artifact form: fields by kind, debounced autosave with a visible status, submit with a confirm. */
export function ArtifactPanel({ state, actions, token }: { state: SessionState; actions: SessionActions; token: string }) {
  const draft = useDraftAutosave(state, actions);
  const { values, latest, status, change } = draft;
  const [confirming, setConfirming] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // After a Submit with empty required fields, each empty field is marked until it is filled.
  const [checked, setChecked] = useState(false);

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
    draft.cancel(); // the submission carries the same values
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
      {/* At the top of the answer, where the participant looks first; role=alert announces it. */}
      {status.kind === 'conflict' && (
        <div className="error-box draft-conflict" role="alert" data-testid="draft-conflict">
          <p>
            Your answer was changed in another tab or window of this study. The edits you made here since then are not saved.
          </p>
          <div className="actions">
            <button type="button" onClick={() => void draft.loadNewer().catch((error) => setProblem(actionMessageOf(error)))}>
              Load the newer version
            </button>
            <button type="button" className="secondary" onClick={() => void draft.keepMine().catch((error) => setProblem(actionMessageOf(error)))}>
              Keep this version
            </button>
          </div>
        </div>
      )}
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
        <p className={status.kind === 'error' || status.kind === 'refused' ? 'save-status error' : 'save-status'} role="status" data-save={status.kind}>
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
    case 'refused':
      return `Not saved: ${status.message}`;
    case 'conflict':
      return 'Not saved: a newer version was saved in another tab.';
  }
}

/** The DOM id of a field's control, so the first missing field can take focus. */
export function fieldDomId(fieldId: string): string {
  return `artifact-field-${fieldId}`;
}
