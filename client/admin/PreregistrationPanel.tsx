import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { DeviationView, PreregistrationStatus } from '../../common/preregistration';
import { preregistrationApi } from './preregistrationApi';

const time = (ms: number) => new Date(ms).toLocaleString();

/**
 * The study's pre-registration: the plan file, its locked versions, the Lock button, and every deviation found
 * since the lock with the researcher's justification (docs/preregistration.md). All text is rendered as text.
 */
export function PreregistrationPanel({ studyId, version, onChanged }: { studyId: string; version: number; onChanged: () => void }) {
  const [status, setStatus] = useState<PreregistrationStatus | null>(null);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => {
    preregistrationApi.status(studyId).then(setStatus, (e: Error) => setMessage({ text: e.message, error: true }));
  }, [studyId]);
  useEffect(load, [load, version]);

  const lock = async () => {
    setBusy(true);
    try {
      const r = await preregistrationApi.lock(studyId);
      setMessage({ text: r.outcome === 'locked' ? `Plan locked: ${r.message}.` : `Nothing to lock: ${r.message}.`, error: false });
      load();
      onChanged();
    } catch (e) {
      setMessage({ text: (e as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };

  if (!status) return <section className="card" aria-labelledby="prereg-title"><h2 id="prereg-title">Pre-registration</h2><p className="page-status">Loading…</p>{message && <p role="alert" className="error">{message.text}</p>}</section>;
  const latest = status.versions.at(-1);
  return (
    <section className="card admin-prereg" aria-labelledby="prereg-title" data-testid="preregistration">
      <h2 id="prereg-title">Pre-registration</h2>
      {status.planFile === null ? (
        <p className="hint">No analysis plan: write <code>studies/{studyId}.prereg.yaml</code> to lock one before data collection.</p>
      ) : (
        <>
          <p className="hint">
            Plan file <code>{status.planFile}</code>.{' '}
            {latest
              ? `Locked as version ${latest.version} on ${time(latest.lockedAt)} by ${latest.lockedBy}${status.versions.length > 1 ? ` (${status.versions.length} versions on record)` : ''}.`
              : 'Not locked yet.'}
            {latest && status.planChanged && ' The plan file differs from the locked version: lock it as a new version, or restore it.'}
          </p>
          {status.planProblems.length > 0 && (
            <ul className="error-box" role="alert" data-testid="prereg-problems">
              {status.planProblems.map((p) => <li key={p}>{p}</li>)}
            </ul>
          )}
          <div className="admin-inline-form">
            <button type="button" onClick={() => void lock()} disabled={busy || status.planProblems.length > 0}>
              {latest ? 'Lock a new version' : 'Lock the plan'}
            </button>
          </div>
        </>
      )}
      {message && <p role="status" className={message.error ? 'error' : 'success'}>{message.text}</p>}
      {status.versions.length > 0 && <DeviationList studyId={studyId} deviations={status.deviations} onSaved={load} />}
    </section>
  );
}

function DeviationList({ studyId, deviations, onSaved }: { studyId: string; deviations: DeviationView[]; onSaved: () => void }) {
  return (
    <>
      <h3>Deviations</h3>
      {deviations.length === 0 ? (
        <p className="hint" data-testid="no-deviations">None since the lock.</p>
      ) : (
        <ul className="admin-deviations" data-testid="deviations">
          {deviations.map((d) => (
            <li key={d.id}>
              <span className="admin-deviation-what">
                <code>{d.file}</code>: {d.message}
              </span>{' '}
              <span className="hint">(version {d.version}, {time(d.detectedAt)})</span>
              <Justification studyId={studyId} deviation={d} onSaved={onSaved} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Justification({ studyId, deviation, onSaved }: { studyId: string; deviation: DeviationView; onSaved: () => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  if (deviation.justification !== null) return <p className="admin-justification">Justification: {deviation.justification}</p>;
  const save = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await preregistrationApi.justify(studyId, deviation.id, { justification: text });
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const id = `justify-${deviation.id}`;
  return (
    <form onSubmit={(e) => void save(e)} className="admin-inline-form">
      <label htmlFor={id}>Justification</label>
      <input id={id} type="text" value={text} onChange={(e) => setText(e.target.value)} maxLength={4000} />
      <button type="submit" disabled={text.trim().length === 0}>Save</button>
      {error && <span role="alert" className="error">{error}</span>}
    </form>
  );
}
