import { useEffect, useState, type FormEvent } from 'react';
import { actionMessageOf } from '../errorMessages';
import { RequestError } from '../../socket/errors';
import { ErrorAlert } from '../../ui/formParts';

/**
 * Someone already started this study with the link's participant id, and this browser cannot show it is
 * them (no session token here, no matching per-visit id in the link). Their session opens only with its
 * resume code; nothing about the session is shown before.
 */
/** A server sentence (they start lowercase, as clauses) as a sentence on the page. */
function sentence(text: string): string {
  const t = text.trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
}

export function ResumeCodePage({
  submit,
  movedAway = false,
  knownCode = null,
}: {
  submit: (code: string) => Promise<void>;
  movedAway?: boolean;
  knownCode?: string | null;
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
            This study was already started with your participant id, in another browser. To continue that session in this browser, type its
            resume code: it is on your consent receipt and at the top of the page in the browser where you started.
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
        <p className="hint">
          Did not start this study yourself, or lost the code? Contact the researcher through the recruitment platform; do not start a new
          session under someone else&apos;s id.
        </p>
      </section>
    </main>
  );
}
