import { useEffect, useState, type FormEvent } from 'react';
import { actionMessageOf } from '../errorMessages';
import { RequestError } from '../../socket/errors';
import { ErrorAlert } from '../../ui/formParts';

/** A server sentence (they start lowercase, as clauses) as a sentence on the page. */
function sentence(text: string): string {
  const t = text.trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
}

/**
 * A session started with the link's participant id opens in this browser only with its resume code: the
 * participant asked for this prompt from a fresh session (ResumeOffer), the study is closed to new sessions,
 * or this browser's session was reopened elsewhere (`movedAway`). Nothing about any session is shown before.
 */
export function ResumeCodePage({
  submit,
  movedAway = false,
  knownCode = null,
  back,
}: {
  submit: (code: string) => Promise<void>;
  movedAway?: boolean;
  knownCode?: string | null;
  /** The participant opened this prompt from a session this browser just started: go back to it. */
  back?: () => void;
}) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    document.title = 'Resume your session · Tandem';
  }, []);
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await submit(code);
    } catch (err) {
      // The server's words for a wrong or malformed code and for the attempt limit are written for participants.
      const own = err instanceof RequestError && ['forbidden', 'invalid_input', 'rate_limited'].includes(err.code);
      setError(own ? sentence((err as RequestError).message) : actionMessageOf(err));
      setBusy(false);
    }
  };
  return (
    <main className="page narrow" data-step="resume">
      <h1 tabIndex={-1}>Resume your session</h1>
      <section className="card">
        {movedAway ? (
          <p data-testid="resume-moved">
            Your session was opened in another browser with its resume code, so it now continues there; this browser stopped showing it. To
            bring it back here, type the resume code
            {knownCode ? (
              <>
                {' '}
                (this browser showed it: <code data-testid="resume-known-code">{knownCode}</code>)
              </>
            ) : (
              ' (it is on your consent receipt and at the top of the page in the other browser)'
            )}
            . The other browser then stops showing it.
          </p>
        ) : (
          <p>
            To continue a session of this study that you started with your participant id in another browser, type its resume code: it is
            on your consent receipt and at the top of the page in the browser where you started.
          </p>
        )}
        <form onSubmit={(e) => void onSubmit(e)} className="resume-form">
          <label htmlFor="resume-code">Resume code</label>{' '}
          <input
            id="resume-code"
            name="resume-code"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            placeholder="e.g. K7QM-P3XD"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            maxLength={20}
          />{' '}
          <button type="submit" disabled={busy || code.trim().length === 0}>
            Continue my session
          </button>
        </form>
        <ErrorAlert message={error} />
        {back && (
          <p>
            <button type="button" className="link-button" onClick={back}>
              I have not started this study before: start now
            </button>
          </p>
        )}
        <p className="hint">
          Did not start this study yourself, or lost the code? Contact the researcher through the recruitment platform; do not start a new
          session under someone else&apos;s id.
        </p>
      </section>
    </main>
  );
}
