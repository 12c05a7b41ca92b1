import { useState, type FormEvent } from 'react';
import type { WithdrawalPreview } from '../../common/adminSessionList';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminApi } from './api';

/** Withdraws one participant (by platform id): their science data is deleted and a tombstone keeps them out of later exports. */
export function WithdrawPanel({ studyId, onDone }: { studyId: string; onDone: () => void }) {
  const [participant, setParticipant] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [preview, setPreview] = useState<WithdrawalPreview | null>(null);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  // The confirmation names what will go: the number of sessions and their pseudonyms (looked up on the server).
  const ask = async (e: FormEvent) => {
    e.preventDefault();
    setMessage(null);
    try {
      setPreview(await adminApi.withdrawalPreview(studyId, { participant }));
      setConfirming(true);
    } catch (err) {
      setMessage({ text: (err as Error).message, error: true });
    }
  };
  const count = preview?.sessions.length ?? 0;
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
      <form onSubmit={(e) => void ask(e)} className="admin-inline-form">
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
      <ConfirmDialog
        open={confirming}
        title={count === 0 ? 'No session has this platform id' : `Withdraw this participant: ${count} session${count === 1 ? '' : 's'}?`}
        confirmLabel={count === 0 ? 'Record a tombstone anyway' : `Delete ${count} session${count === 1 ? '' : 's'}`}
        onConfirm={() => void withdraw()}
        onCancel={() => setConfirming(false)}
      >
        {count === 0 ? (
          <p data-testid="withdraw-none">
            No session in study <code>{studyId}</code> was started with <strong className="admin-msg-text">{participant.trim()}</strong>. Check
            the id for a typo. Withdrawing anyway deletes nothing, but records a tombstone that keeps any later session with this id out of
            exports.
          </p>
        ) : (
          <>
            <p data-testid="withdraw-count">
              {count} session{count === 1 ? '' : 's'} of <strong className="admin-msg-text">{participant.trim()}</strong> in study{' '}
              <code>{studyId}</code> will be deleted, with everything in {count === 1 ? 'it' : 'them'}. This cannot be undone.
            </p>
            <ul className="admin-withdraw-list" data-testid="withdraw-pseudonyms">
              {preview!.sessions.map((s) => (
                <li key={s.pseudonym}>
                  <code>{s.pseudonym}</code> · {s.status}
                  {s.isPilot ? ' · pilot' : ''} · started {new Date(s.createdAt).toLocaleString()}
                </li>
              ))}
            </ul>
          </>
        )}
      </ConfirmDialog>
    </section>
  );
}
