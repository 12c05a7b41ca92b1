import { useState } from 'react';
import type { SessionState } from '../../../common/session';
import { actionMessageOf } from '../errorMessages';
import { SafeMarkdown } from '../chat/SafeMarkdown';
import { MaterialsList } from './MaterialsList';
import { ErrorAlert } from '../../ui/formParts';

/** The task's instructions and materials, then "Start the task". */
export function InstructionsStep({ state, token, onStart }: { state: SessionState; token: string; onStart: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      await onStart();
    } catch (err) {
      setError(actionMessageOf(err));
      setBusy(false);
    }
  };
  const minutesLeft = state.deadline === null ? null : Math.max(0, Math.round((state.deadline - state.serverNow) / 60_000));
  return (
    <>
      <h1 tabIndex={-1}>Instructions: {state.task.title}</h1>
      <section className="card">
        <SafeMarkdown text={state.task.instructions} />
        <MaterialsList materials={state.task.materials} token={token} />
      </section>
      <section className="card">
        <h2>How this works</h2>
        <ul>
          <li>
            You will work with <strong>{state.assistant.label}</strong>
            {state.assistant.offline ? ' (a demo assistant that runs without an AI service)' : ''} in a chat beside a form
            where you build your answer.
          </li>
          <li>Your work is saved automatically as you go. When you are done, submit it and answer a short survey.</li>
          {minutesLeft !== null && <li>You have about {minutesLeft} minutes.</li>}
        </ul>
      </section>
      <ErrorAlert message={error} />
      <div className="actions">
        <button type="button" onClick={() => void start()} disabled={busy}>
          Start the task
        </button>
      </div>
    </>
  );
}
