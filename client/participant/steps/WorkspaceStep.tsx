import { useMemo } from 'react';
import { parseSeatReply } from '../../../common/seatReply';
import type { SessionState } from '../../../common/session';
import { ArtifactPanel } from '../artifact/ArtifactPanel';
import { ChatPanel } from '../chat/ChatPanel';
import { SafeMarkdown } from '../chat/SafeMarkdown';
import type { LiveSession } from '../session/liveSession';
import type { SessionActions } from '../session/useParticipantSession';
import { MaterialsList } from './MaterialsList';
import { useIntegrityTelemetry } from '../telemetry/useIntegrityTelemetry';

/** The brief of a teamwork seat: it arrives in the team's first reply and is shown as the task's instructions. */
function seatBrief(state: SessionState): string | null {
  if (!state.assistant.seat) return null;
  for (const m of state.messages) {
    if (m.role !== 'assistant' || !m.text) continue;
    const brief = parseSeatReply(m.text)?.find((p) => p.kind === 'brief');
    if (brief && brief.kind === 'brief') return brief.text;
  }
  return null;
}

/**
 * The task: brief and materials on top, chat beside the artifact form. Records integrity telemetry
 * (pastes, typing cadence, time away; batched, never content): the panels' paste reports go to it.
 */
export function WorkspaceStep({ live, actions: sessionActions, token }: { live: LiveSession; actions: SessionActions; token: string }) {
  const { state } = live;
  const note = useIntegrityTelemetry(sessionActions.telemetryBatch);
  const actions = useMemo(() => ({ ...sessionActions, telemetry: note }), [sessionActions, note]);
  const brief = seatBrief(state);
  return (
    <>
      <h1 tabIndex={-1}>{state.task.title}</h1>
      <div className="workspace">
        <ChatPanel live={live} actions={actions} />
        <div className="workspace-side">
          <section className="card task-brief" aria-label="Task instructions">
            {brief !== null && (
              <section className="seat-brief" aria-labelledby="seat-brief-heading" data-testid="seat-brief">
                <h2 id="seat-brief-heading">Your brief</h2>
                <SafeMarkdown text={brief} />
              </section>
            )}
            <details open={brief === null}>
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
