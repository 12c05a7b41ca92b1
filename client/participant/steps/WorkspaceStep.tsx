import { useMemo } from 'react';
import { ArtifactPanel } from '../artifact/ArtifactPanel';
import { ChatPanel } from '../chat/ChatPanel';
import { SafeMarkdown } from '../chat/SafeMarkdown';
import type { LiveSession } from '../session/liveSession';
import type { SessionActions } from '../session/useParticipantSession';
import { MaterialsList } from './MaterialsList';
import { useIntegrityTelemetry } from '../telemetry/useIntegrityTelemetry';

/**
 * The task: brief and materials on top, chat beside the artifact form. Records integrity telemetry
 * (pastes, typing cadence, time away; batched, never content): the panels' paste reports go to it.
 */
export function WorkspaceStep({ live, actions: sessionActions, token }: { live: LiveSession; actions: SessionActions; token: string }) {
  const { state } = live;
  const note = useIntegrityTelemetry(sessionActions.telemetryBatch);
  const actions = useMemo(() => ({ ...sessionActions, telemetry: note }), [sessionActions, note]);
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
