import { useEffect, useId, useRef, useState } from 'react';
import { StatusChangeRequest } from '../../common/admin';
import { ConfirmDialog } from '../ui/ConfirmDialog';

/** What the researcher chose when going live with a plan that was never locked. */
export type LockChoice = { kind: 'lock' } | { kind: 'opt_out'; reason: string };

interface LockBeforeLiveDialogProps {
  open: boolean;
  /** Why the plan cannot be locked as it is (file:line: field: message each); locking is offered only without any. */
  planProblems: readonly string[];
  onChoose: (choice: LockChoice) => void;
  onCancel: () => void;
}

const optOutReason = StatusChangeRequest.shape.preregistration_opt_out;

/**
 * Going live with a plan file that was never locked (docs/preregistration.md): lock it first (the default), or go live without a lock after stating why in the dialog's own reason field (the
 * server's rule: a sentence, kept in the audit log). Built on the app's ConfirmDialog: Escape cancels, focus stays
 * in the dialog and returns when it closes.
 */
export function LockBeforeLiveDialog({ open, planProblems, onChoose, onCancel }: LockBeforeLiveDialogProps) {
  const canLock = planProblems.length === 0;
  const [choice, setChoice] = useState<'lock' | 'opt_out'>(canLock ? 'lock' : 'opt_out');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const lockRef = useRef<HTMLInputElement>(null);
  const optOutRef = useRef<HTMLInputElement>(null);
  const ids = { group: useId(), reason: useId(), error: useId(), problems: useId() };
  useEffect(() => {
    if (!open) return;
    setChoice(canLock ? 'lock' : 'opt_out');
    setReason('');
    setError(null);
    // After ConfirmDialog's showModal (a child's effect runs first): the focus starts on the choice, so Space or the
    // arrow keys pick, Tab goes on to the reason (when going live without a lock), Cancel and the confirm button.
    (canLock ? lockRef : optOutRef).current?.focus();
  }, [open, canLock]);

  const confirm = () => {
    if (choice === 'lock') return onChoose({ kind: 'lock' });
    const checked = optOutReason.safeParse(reason);
    if (!checked.success || checked.data === undefined) {
      setError(`Reason: ${checked.success ? 'state the reason in a sentence' : checked.error.issues[0]!.message}.`);
      reasonRef.current?.focus();
      return;
    }
    onChoose({ kind: 'opt_out', reason: checked.data });
  };

  return (
    <ConfirmDialog
      open={open}
      title="Lock the pre-registration before going live?"
      confirmLabel={choice === 'lock' ? 'Lock and go live' : 'Go live without a lock'}
      onConfirm={confirm}
      onCancel={onCancel}
    >
      <p>
        This study has an analysis plan that was never locked. Locking records the plan and everything that defines the study as run, so any later
        change is reported as a deviation.
      </p>
      {!canLock && (
        <div className="error-box" id={ids.problems} data-testid="lock-problems">
          <p>The plan cannot be locked as it is:</p>
          <ul>{planProblems.map((p) => <li key={p} style={{ overflowWrap: 'anywhere' }}>{p}</li>)}</ul>
        </div>
      )}
      <fieldset aria-labelledby={ids.group}>
        <legend id={ids.group}>Before going live</legend>
        <label style={{ fontWeight: 400 }}>
          <input ref={lockRef} type="radio" name="lock-choice" value="lock" checked={choice === 'lock'} disabled={!canLock} onChange={() => { setChoice('lock'); setError(null); }} />{' '}
          Lock the plan, then go live
        </label>
        <label style={{ fontWeight: 400 }}>
          <input ref={optOutRef} type="radio" name="lock-choice" value="opt_out" checked={choice === 'opt_out'} onChange={() => setChoice('opt_out')} />{' '}
          Go live without a lock
        </label>
      </fieldset>
      {choice === 'opt_out' && (
        <div className="field">
          <label htmlFor={ids.reason}>Why the study goes live without a locked plan</label>
          <p className="hint">Kept in the audit log with your name and the time.</p>
          <textarea
            id={ids.reason}
            ref={reasonRef}
            rows={3}
            value={reason}
            aria-invalid={error !== null}
            aria-describedby={error ? ids.error : undefined}
            onChange={(e) => {
              setReason(e.target.value);
              setError(null);
            }}
          />
          {error && <p className="error" role="alert" id={ids.error}>{error}</p>}
        </div>
      )}
    </ConfirmDialog>
  );
}
