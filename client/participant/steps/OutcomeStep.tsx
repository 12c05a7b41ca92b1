import { useEffect, useState } from 'react';
import type { SessionState } from '../../../common/session';
import { CopyButton } from '../../ui/CopyButton';

const REDIRECT_SECONDS = 5;

const TEXT = {
  completed: { title: 'Thank you — you are done', body: 'Your work and answers are saved.' },
  declined: { title: 'You chose not to take part', body: 'Nothing more is needed from you. Thank you for your time.' },
  timed_out: { title: 'The time for this study is up', body: 'What you had saved so far is kept. Thank you for your time.' },
  lobby_released: { title: 'No group could be formed', body: 'Thank you for waiting. Nothing more is needed from you.' },
} as const;

/**
 * The end of a session (completed, declined, timed out, or released by a group lobby). Shown only once the server has returned
 * the completion in its state, i.e. after everything is committed; only then may we redirect.
 */
export function OutcomeStep({ state }: { state: SessionState }) {
  const completion = state.completion;
  const outcome = completion?.outcome ?? (state.status === 'declined' ? 'declined' : state.status === 'timed_out' ? 'timed_out' : 'completed');
  const text = TEXT[completion?.lobbyReleased ? 'lobby_released' : outcome];
  return (
    <>
      <h1 tabIndex={-1}>{text.title}</h1>
      <section className="card">
        <p>{text.body}</p>
        {completion ? (
          <>
            <p>{outcome === 'completed' ? 'Your completion code:' : 'Your code for the platform that sent you here:'}</p>
            <div className="code-box">
              <output aria-label="Completion code" data-testid="completion-code">
                {completion.code}
              </output>
              <CopyButton text={completion.code} label="Copy the completion code" />
            </div>
            {completion.redirectUrl && <Redirect url={completion.redirectUrl} />}
            {!completion.redirectUrl && <p>Please enter this code on the platform that sent you here.</p>}
          </>
        ) : (
          <p role="status">Finishing up…</p>
        )}
      </section>
    </>
  );
}

/** Counts down visibly, then goes to the recruitment platform; the participant can go now or stay. */
function Redirect({ url }: { url: string }) {
  const [secondsLeft, setSecondsLeft] = useState(REDIRECT_SECONDS);
  const [cancelled, setCancelled] = useState(false);
  useEffect(() => {
    if (cancelled) return;
    if (secondsLeft <= 0) {
      window.location.assign(url);
      return;
    }
    const timer = setTimeout(() => setSecondsLeft((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [secondsLeft, cancelled, url]);
  return (
    <div>
      {cancelled ? (
        <p>Automatic return cancelled.</p>
      ) : (
        <p role="timer" aria-live="off">
          Taking you back in {secondsLeft} s…
        </p>
      )}
      <div className="actions">
        <a href={url}>Return now</a>
        {!cancelled && (
          <button type="button" className="secondary" onClick={() => setCancelled(true)}>
            Stay on this page
          </button>
        )}
      </div>
    </div>
  );
}
