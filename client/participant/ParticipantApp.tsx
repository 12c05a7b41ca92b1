import { useEffect, useRef } from 'react';
import type { SessionState } from '../../common/session';
import { SessionHeader } from './SessionHeader';
import { useParticipantSession, type SessionActions } from './session/useParticipantSession';
import type { LiveSession } from './session/liveSession';
import type { ConnectionState } from '../socket/sessionSocket';
import { ConsentStep } from './steps/ConsentStep';
import { ResumeCodePage } from './steps/ResumeCodePage';
import { ResumeOffer } from './steps/ResumeOffer';
import { InstructionsStep } from './steps/InstructionsStep';
import { OutcomeStep } from './steps/OutcomeStep';
import { PreviewPage } from './steps/PreviewPage';
import { SurveyStep } from './steps/SurveyStep';
import { WorkspaceStep } from './steps/WorkspaceStep';
import { GroupGate } from './group/GroupGate';
import type { ParticipantProblem } from './errorMessages';

/** The participant tree: /study/<id>. Picks the step component from the session's step and status. */
export default function ParticipantApp({ studyId }: { studyId: string }) {
  const view = useParticipantSession(studyId);

  if (view.phase === 'loading') return <p className="page-status" role="status">{view.message}</p>;
  if (view.phase === 'preview') return <PreviewPage study={view.study} />;
  if (view.phase === 'error') return <ProblemPage problem={view.problem} />;
  if (view.phase === 'resume')
    return <ResumeCodePage submit={view.submit} movedAway={view.movedAway} knownCode={view.knownCode} {...(view.back ? { back: view.back } : {})} />;

  const { live, actions, token, connection, connectionNotice, resumeCode, resumeInstead } = view;
  return (
    <LiveSessionPage
      live={live}
      actions={actions}
      token={token}
      connection={connection}
      connectionNotice={connectionNotice}
      resumeCode={resumeCode}
      resumeInstead={resumeInstead}
    />
  );
}

function LiveSessionPage({
  live,
  actions,
  token,
  connection,
  connectionNotice,
  resumeCode,
  resumeInstead,
}: {
  live: LiveSession;
  actions: SessionActions;
  token: string;
  connection: ConnectionState;
  connectionNotice: string | null;
  resumeCode: string | null;
  resumeInstead: (() => void) | null;
}) {
  useEffect(() => {
    document.title = `${live.state.studyTitle} · Tandem`;
  }, [live.state.studyTitle]);
  return (
    <>
      <SessionHeader state={live.state} connection={connection} notice={connectionNotice} resumeCode={resumeCode} />
      <StepView live={live} actions={actions} token={token} resumeCode={resumeCode} resumeInstead={resumeInstead} />
    </>
  );
}

export type StepKey = SessionState['step'] | 'declined' | 'timed_out';

export function stepKeyOf(state: SessionState): StepKey {
  if (state.status === 'declined') return 'declined';
  if (state.status === 'timed_out') return 'timed_out';
  if (state.status === 'completed') return 'complete';
  return state.step;
}

function StepView({
  live,
  actions,
  token,
  resumeCode,
  resumeInstead,
}: {
  live: LiveSession;
  actions: SessionActions;
  token: string;
  resumeCode: string | null;
  resumeInstead: (() => void) | null;
}) {
  const { state } = live;
  const key = stepKeyOf(state);
  const mainRef = useRef<HTMLElement>(null);
  // Move focus to the new step's heading so screen-reader and keyboard users start at the top.
  // Without scrolling to the heading: the page starts at its top, with the header (progress, time, code) in view.
  useEffect(() => {
    mainRef.current?.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [key]);

  return (
    <main ref={mainRef} className={key === 'workspace' ? 'page' : 'page narrow'} data-step={key}>
      {key === 'consent' && resumeInstead && <ResumeOffer onResume={resumeInstead} />}
      {key === 'consent' && <ConsentStep state={state} onRespond={actions.respondConsent} resumeCode={resumeCode} />}
      {(key === 'instructions' || key === 'workspace') && (
        <GroupGate state={state} actions={actions} token={token}>
          {key === 'instructions' && <InstructionsStep state={state} token={token} onStart={() => actions.advance('instructions')} />}
          {key === 'workspace' && <WorkspaceStep live={live} actions={actions} token={token} />}
        </GroupGate>
      )}
      {key === 'survey' && <SurveyStep state={state} onSubmit={actions.submitSurvey} />}
      {(key === 'complete' || key === 'declined' || key === 'timed_out') && <OutcomeStep state={state} />}
    </main>
  );
}

/** Why the study cannot open, in plain words, and what to do; "Try again" only when retrying can help. */
function ProblemPage({ problem }: { problem: ParticipantProblem }) {
  useEffect(() => {
    document.title = `${problem.title} · Tandem`;
  }, [problem.title]);
  return (
    <main className="page narrow error-page">
      <h1>{problem.title}</h1>
      <section className="card" role="alert">
        <p>{problem.explanation}</p>
        <h2>What you can do</h2>
        <ul className="next-steps">
          {problem.nextSteps.map((step) => (
            <li key={step}>{step}</li>
          ))}
        </ul>
      </section>
      {problem.retryable && (
        <button type="button" onClick={() => window.location.reload()}>
          Try again
        </button>
      )}
    </main>
  );
}
