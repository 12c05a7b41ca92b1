import { useState } from 'react';
import type { SessionState } from '../../../common/session';
import { actionMessageOf } from '../errorMessages';
import { SafeMarkdown } from '../chat/SafeMarkdown';
import { ErrorAlert } from '../../ui/formParts';

/** Versioned consent text with Accept / Decline; declining ends the session with the decline code. */
export function ConsentStep({
  state,
  onRespond,
  resumeCode = null,
}: {
  state: SessionState;
  onRespond: (accept: boolean, version: string) => Promise<void>;
  resumeCode?: string | null;
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
      {resumeCode && <ConsentReceipt state={state} resumeCode={resumeCode} />}
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

/**
 * The receipt: consent version and the session's resume code (to reopen the session in another browser
 * when the study link has no per-visit id), with a copy to keep.
 */
function ConsentReceipt({ state, resumeCode }: { state: SessionState; resumeCode: string }) {
  const copy = [
    `${state.studyTitle}: consent form version ${state.consent.version}`,
    `Resume code: ${resumeCode}`,
    'With this code you can reopen your session in another browser (open your study link there and type the code).',
    '',
    state.consent.text,
  ].join('\n');
  const href = `data:text/plain;charset=utf-8,${encodeURIComponent(copy)}`;
  return (
    <section className="card consent-receipt" aria-labelledby="receipt-heading" data-testid="consent-receipt">
      <h2 id="receipt-heading">Your receipt</h2>
      <p>
        Your resume code is <code data-testid="receipt-resume-code">{resumeCode}</code>. Write it down: to continue in another browser
        or device, open your study link there; if that browser asks for a resume code, type this one. It is also shown at the top of the
        page while you work.
      </p>
      <a href={href} download={`consent-${state.consent.version}.txt`}>
        Download a copy of this consent form and your code
      </a>
    </section>
  );
}
