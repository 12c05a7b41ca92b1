import { useEffect } from 'react';
import { ArtifactPanel } from '../artifact/ArtifactPanel';
import { ChatPanel } from '../chat/ChatPanel';
import { SafeMarkdown } from '../chat/SafeMarkdown';
import type { LiveSession } from '../session/liveSession';
import type { SessionActions } from '../session/useParticipantSession';
import { MaterialsList } from './MaterialsList';

/** The task: brief and materials on top, chat beside the artifact form. Logs focus/blur/visibility. */
export function WorkspaceStep({ live, actions, token }: { live: LiveSession; actions: SessionActions; token: string }) {
  const { state } = live;
  useWorkspaceTelemetry(actions.telemetry);
  return (
    <>
      <h1 tabIndex={-1}>{state.task.title}</h1>
      <div className="workspace">
        <ChatPanel live={live} actions={actions} />
        <div className="workspace-side">
          <section className="card task-brief" aria-label="Task instructions">
            <details open>
              <summary>Task instructions</summary>
              <SafeMarkdown text={state.task.instructions} />
            </details>
            <MaterialsList materials={state.task.materials} token={token} />
          </section>
          <ArtifactPanel state={state} actions={actions} token={token} />
        </div>
      </div>
    </>
  );
}

/** Window focus/blur and tab visibility while the participant is in the workspace (never content). */
function useWorkspaceTelemetry(send: SessionActions['telemetry']) {
  useEffect(() => {
    const onFocus = () => send({ kind: 'focus' });
    const onBlur = () => send({ kind: 'blur' });
    const onVisibility = () => send({ kind: 'visibility', state: document.visibilityState === 'hidden' ? 'hidden' : 'visible' });
    window.addEventListener('focus', onFocus);
    window.addEventListener('blur', onBlur);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.removeEventListener('focus', onFocus);
      window.removeEventListener('blur', onBlur);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [send]);
}
