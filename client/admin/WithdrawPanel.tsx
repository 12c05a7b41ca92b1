import { useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminApi } from './api';

/** Withdraws one participant (by platform id): their science data is deleted and a tombstone keeps them out of later exports. */
export function WithdrawPanel({ studyId, onDone }: { studyId: string; onDone: () => void }) {
  const [participant, setParticipant] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const ask = (e: FormEvent) => {
    e.preventDefault();
    setMessage(null);
    setConfirming(true);
  };
  const withdraw = async () => {
    setConfirming(false);
    try {
      const r = await adminApi.withdraw(studyId, { participant });
      setMessage({
        text:
          r.deletedSessions === 0
            ? `No session found for that platform id; a tombstone (reference ${r.reference}) keeps any later session out of exports.`
            : `Withdrawn: ${r.deletedSessions} session(s) deleted (reference ${r.reference}).`,
        error: false,
      });
      setParticipant('');
      onDone();
    } catch (err) {
      setMessage({ text: (err as Error).message, error: true });
    }
  };
  return (
    <section className="card" aria-labelledby="withdraw-title">
      <h2 id="withdraw-title">Withdraw a participant</h2>
      <p className="hint" id="withdraw-help">
        Deletes everything this person did in this study (messages, artifacts, uploads, survey, judge results) and keeps only
        a tombstone without personal data, so later exports and analyses leave them out. This cannot be undone.
      </p>
      <form onSubmit={ask} className="admin-inline-form">
        <label htmlFor="withdraw-id">Platform id</label>
        <input
          id="withdraw-id"
          type="text"
          value={participant}
          onChange={(e) => setParticipant(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          placeholder="e.g. the PROLIFIC_PID"
          aria-describedby="withdraw-help"
        />
        <button type="submit" className="danger" disabled={participant.trim().length === 0}>Withdraw and delete data</button>
      </form>
      {message && <p role="status" className={message.error ? 'error' : 'success'}>{message.text}</p>}
      <ConfirmDialog open={confirming} title="Withdraw this participant?" confirmLabel="Delete their data" onConfirm={() => void withdraw()} onCancel={() => setConfirming(false)}>
        <p>
          All data of <strong className="admin-msg-text">{participant.trim()}</strong> in study <code>{studyId}</code> will be deleted. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
