import { useState } from 'react';
import type { SessionState } from '../../../common/session';
import { actionMessageOf } from '../errorMessages';
import { SafeMarkdown } from '../chat/SafeMarkdown';
import { ErrorAlert } from '../../ui/formParts';

/** Versioned consent text with Accept / Decline; declining ends the session with the decline code. */
export function ConsentStep({
  state,
  onRespond,
}: {
  state: SessionState;
  onRespond: (accept: boolean, version: string) => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const respond = async (accept: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await onRespond(accept, state.consent.version);
    } catch (err) {
      setError(actionMessageOf(err));
      setBusy(false);
    }
  };
  return (
    <>
      <h1 tabIndex={-1}>Consent to take part</h1>
      <section className="card" aria-labelledby="consent-heading">
        <h2 id="consent-heading" className="visually-hidden">
          Consent form
        </h2>
        <div className="consent-text" tabIndex={0} aria-label="Consent text">
          <SafeMarkdown text={state.consent.text} />
        </div>
        <p className="hint">Consent form version {state.consent.version}</p>
      </section>
      <ErrorAlert message={error} />
      <div className="actions">
        <button type="button" onClick={() => void respond(true)} disabled={busy}>
          I agree and want to take part
        </button>
        <button type="button" className="secondary" onClick={() => void respond(false)} disabled={busy}>
          I do not agree
        </button>
      </div>
    </>
  );
}
