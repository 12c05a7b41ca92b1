import { useEffect, useState } from 'react';
import type { SessionState } from '../../common/session';
import type { ConnectionState } from '../socket/sessionSocket';

const STEP_LABELS: [SessionState['step'], string][] = [
  ['consent', 'Consent'],
  ['instructions', 'Instructions'],
  ['workspace', 'Task'],
  ['survey', 'Survey'],
  ['complete', 'Done'],
];

/** Study title, where the participant is in the flow, time left, the resume code and connection status. */
export function SessionHeader({
  state,
  connection,
  notice = null,
  resumeCode = null,
}: {
  state: SessionState;
  connection: ConnectionState;
  notice?: string | null;
  resumeCode?: string | null;
}) {
  const active = state.status === 'active';
  return (
    <header className="topbar">
      <span className="title">{state.studyTitle}</span>
      {active && (
        <nav aria-label="Study progress">
          <ol className="steps">
            {STEP_LABELS.map(([step, label]) => (
              <li key={step} aria-current={state.step === step ? 'step' : undefined}>
                {label}
              </li>
            ))}
          </ol>
        </nav>
      )}
      <span className="conn-group">
        {/* The time limit ends the instructions and the task only (server/services/lifecycle.ts): the survey has no clock. */}
        {active && state.deadline !== null && (state.step === 'instructions' || state.step === 'workspace') && (
          <TimeLeft deadline={state.deadline} serverNow={state.serverNow} />
        )}{' '}
        {active && resumeCode && (
          <span className="conn resume-code" title="With this code you can reopen your session in another browser" data-testid="resume-code">
            Resume code: <code>{resumeCode}</code>
          </span>
        )}{' '}
        <span className={connection === 'connected' ? 'conn' : 'conn down'} role="status">
          {connectionLabel(connection, notice)}
        </span>
      </span>
    </header>
  );
}

/** The status line's text: empty when connected; the server's reason while it refuses the socket. */
export function connectionLabel(connection: ConnectionState, notice: string | null): string {
  switch (connection) {
    case 'connected':
      return '';
    case 'reconnecting':
      return 'Connection lost — reconnecting…';
    case 'refused':
      return notice ?? 'The server refused the connection — trying again in a moment…';
    case 'unauthorized':
      return 'This link is no longer valid for your session.';
    case 'connecting':
      return 'Connecting…';
  }
}

/** Minutes left, corrected for the difference between the server's and the browser's clocks. */
function TimeLeft({ deadline, serverNow }: { deadline: number; serverNow: number }) {
  const [skew] = useState(() => serverNow - Date.now());
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  const minutes = Math.max(0, Math.ceil((deadline - (now + skew)) / 60_000));
  return (
    <span className={minutes <= 5 ? 'conn down' : 'conn'}>
      Time left: {minutes} min
    </span>
  );
}
